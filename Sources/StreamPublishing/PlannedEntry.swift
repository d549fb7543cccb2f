import Foundation
import HLSPlaylist

/// What a playlist entry holds, as far as seams are concerned: two consecutive entries from
/// different sources need EXT-X-DISCONTINUITY between them (RFC 8216 §4.3.2.3: the encoder,
/// and so the encoding parameters or timestamp sequence, changed).
public enum EntrySource: Sendable, Equatable {
    /// The variant's own encoder, in pipeline run `run` (each run is a new encoder).
    case real(run: Int)
    /// A copy of sibling `variant`'s segment for the same slot.
    case sibling(String)
    /// The variant's stand-in card, restamped for the slot.
    case standIn
    /// An EXT-X-GAP entry: no file.
    case gap
    /// Entries recorded by an earlier process.
    case restored
}

/// One entry the core decided to list: its owner records it and publishes it.
public struct PlannedEntry: Sendable, Equatable {
    public enum Content: Sendable, Equatable {
        /// The segment the pipeline finished for this slot.
        case real
        /// The segment `variant` listed for this slot, under this variant's name.
        case sibling(String)
        /// The stand-in card; `copy` counts the stand-ins in a row (0 first), so continuity
        /// counters can run on across copies of the same bytes.
        case standIn(copy: Int)
        /// The parts of the variant's own segment published before its encoder stopped, one
        /// after another: the segment cut short where they end (a part once listed is what
        /// the segment holds). EXTINF is their sum.
        case listedParts
        /// EXT-X-GAP, no file: a failed variant's slot (`on_variant_failure: gap`), a slot
        /// listed only to keep variants aligned, or a slate segment (`on_input_loss: gap`).
        case gap

        /// How players are told what a fill is (`CMSD-Static`): `stand-in`, `sibling`, or nil
        /// for the variant's own segment and for a gap (which has no file).
        public var fillName: String? {
            switch self {
            case .sibling: "sibling"
            case .standIn: "stand-in"
            case .real, .listedParts, .gap: nil
            }
        }
    }

    /// The stream's timeline slot: media time [slot x D, (slot + 1) x D).
    public var slot: Int
    public var content: Content
    public var discontinuity: Bool
    /// EXT-X-DATERANGE tags written just before the entry.
    public var dateRanges: [DateRange]
    /// EXT-X-PROGRAM-DATE-TIME: the real capture time for a real segment, else extrapolated
    /// from the latest real one on the same timeline.
    public var programDateTime: Date?
    /// EXTINF: the real duration for a real segment, else the segment duration D.
    public var duration: Double

    public init(slot: Int, content: Content, discontinuity: Bool, dateRanges: [DateRange], programDateTime: Date?, duration: Double) {
        self.slot = slot
        self.content = content
        self.discontinuity = discontinuity
        self.dateRanges = dateRanges
        self.programDateTime = programDateTime
        self.duration = duration
    }
}

/// What the publishing core decided, returned for its owner to carry out in the order given
/// (`SlotPublisher.takeEffects()`): the core itself writes nothing, so it runs in
/// milliseconds under a test's clock and its lock is held only while it decides.
public enum PublishingEffect: Sendable, Equatable {
    /// List `entry` in `variant`'s playlist (segment first, then the playlist) as media
    /// sequence number `sequence`, published with `edge` (its parts; nil without parts).
    case list(PlannedEntry, variant: String, sequence: Int, edge: LowLatencyEdge?)
    /// GAP entries of one variant, alike but for their slots and dates, listed at once: a
    /// long absence on the universal grid is thousands of them, and one write of the playlist
    /// costs what one entry costs where a write each would cost the square.
    /// The first is `firstSequence`; `edge` goes with the last.
    case listGaps([PlannedEntry], variant: String, firstSequence: Int, edge: LowLatencyEdge?)
    /// The variants the master should list now, best first (none until every listed
    /// variant's media playlist answers 200).
    case master(listing: [String])
    /// The slot <-> entry map changed (a run started after skipped slots): persist it.
    case timeline(StreamTimeline)
    /// The recording is empty and its first entry will be slot `slot` of the universal grid:
    /// its media sequence numbers are slot numbers from the start (EXT-X-MEDIA-SEQUENCE:slot).
    case numberFrom(slot: Int)
}

/// Carries out the core's effects: a recorder and registry in the server, a list in tests.
public protocol PublishingSink: AnyObject, Sendable {
    func list(_ entry: PlannedEntry, in variant: String, sequence: Int, edge: LowLatencyEdge?)
    func masterChanged(listing variants: [String])
    func timelineChanged(_ timeline: StreamTimeline)
    func listGaps(_ entries: [PlannedEntry], in variant: String, firstSequence: Int, edge: LowLatencyEdge?)
    func numberFrom(slot: Int)
}

extension PublishingSink {

    /// A sink that numbers by entry alone (tests that look at slots) need not.
    public func numberFrom(slot: Int) {}

    /// Carries out `effects` in their order.
    public func carry(_ effects: [PublishingEffect]) {
        for effect in effects {
            switch effect {
            case let .list(entry, variant, sequence, edge): list(entry, in: variant, sequence: sequence, edge: edge)
            case let .listGaps(entries, variant, firstSequence, edge): listGaps(entries, in: variant, firstSequence: firstSequence, edge: edge)
            case let .master(listing): masterChanged(listing: listing)
            case let .timeline(timeline): timelineChanged(timeline)
            case let .numberFrom(slot): numberFrom(slot: slot)
            }
        }
    }
}

extension DateRange {
    static func fillSpan(_ classLabel: String, variantFilled: String, since start: Date, until end: Date? = nil) -> DateRange {
        let prefix = classLabel == standInClass ? "stand-in" : "sibling-fill"
        return DateRange(id: "\(prefix)-\(variantFilled)-" + ProgramDateTime.format(start), classLabel: classLabel, startDate: start, endDate: end)
    }
}

extension PlannedEntry.Content {
    /// The source a fill of this content counts as, and the CLASS of the span it belongs to
    /// (nil source for the variant's own segment, which no fill is).
    var fillSourceAndSpan: (EntrySource?, String?) {
        switch self {
        case .real, .listedParts: (nil, nil)
        case let .sibling(sibling): (.sibling(sibling), DateRange.siblingFillClass)
        case .standIn: (.standIn, DateRange.standInClass)
        case .gap: (.gap, nil)
        }
    }
}
