import Foundation
import HLSPlaylist
import SidelineCore

/// What a finished segment is while a camera or feed comes and goes, and how it is listed
/// (`stream.on_input_loss`). Pure: the pipeline reports each outage with the first segment its
/// slate fills and the first camera segment after it; this plan answers, segment by segment
/// and variant by variant, what to list.
///
/// - `slate`: the slate segments are listed as they are; the first of each variant opens an
///   EXT-X-DATERANGE of class `com.sideline.input-lost`, and the first camera segment after
///   the outage closes it, after an EXT-X-DISCONTINUITY (the encoder's source changed).
/// - `gap`: the same entries, as EXT-X-GAP (no file); the same date ranges.
/// - `stale`: the slate segments are withheld, so the playlists stop advancing and go stale
///   (404); late slots are not filled meanwhile either. The first camera segment after the
///   outage carries the one, closed, date range.
public struct InputLossPlan: Sendable, Equatable {
    public let policy: InputLossPolicy
    /// Input outages of this pipeline run, oldest first.
    private var outages: [Outage] = []
    /// The input could not be opened: the stream shows as input-lost until a camera segment
    /// is listed.
    public private(set) var inputUnavailable = false

    /// One outage: which segments the slate fills, and when it began and ended.
    struct Outage: Sendable, Equatable {
        let since: Date
        let firstSlateSegment: Int
        var restoredAt: Date?
        var firstLiveSegment: Int?
        /// Variants whose playlist already carries the opening EXT-X-DATERANGE.
        var opened: Set<String> = []

        func contains(segment index: Int) -> Bool {
            index >= firstSlateSegment && (firstLiveSegment.map { index < $0 } ?? true)
        }
    }

    /// How one finished segment is listed.
    public enum Treatment: Sendable, Equatable {
        /// The camera's own segment, as it is. `backFromUnavailable`: the first since the
        /// input could not be opened (the stream is live again).
        case camera(backFromUnavailable: Bool)
        /// A slate segment of an outage: listed with `marks` (as EXT-X-GAP with `gap`), or
        /// withheld (`stale`).
        case slate(SegmentMarks)
        case withheld
        /// The camera's first segment after an outage: it closes the outage's date range
        /// after a discontinuity, and late slots are filled again from here on.
        case firstAfterOutage(SegmentMarks)
    }

    public init(policy: InputLossPolicy) {
        self.policy = policy
    }

    /// A new pipeline run: the old run's outages are over (it is gone).
    public mutating func beginRun() {
        outages = []
    }

    /// The pipeline lost its input; its slate fills from `firstSlateSegment`. Returns whether
    /// late slots must be left empty until the camera is back (`stale`).
    public mutating func inputLost(since: Date, firstSlateSegment: Int) -> Bool {
        outages.append(Outage(since: since, firstSlateSegment: firstSlateSegment))
        return policy == .stale
    }

    /// The input is back; its segments take slots from `firstLiveSegment` on.
    public mutating func inputRestored(at: Date, firstLiveSegment: Int) {
        guard !outages.isEmpty else { return }
        outages[outages.count - 1].restoredAt = at
        outages[outages.count - 1].firstLiveSegment = firstLiveSegment
    }

    /// The pipeline could not be opened at all.
    public mutating func inputCouldNotBeOpened() {
        inputUnavailable = true
    }

    /// How `variant`'s segment for timeline slot `index` is listed. Call once per segment:
    /// the first slate segment of each variant is the one that opens the date range.
    /// Whether segment `index` shows the camera (no outage holds it): its parts may be listed
    /// (Low-Latency HLS) before the segment is. Asks without changing anything.
    public func showsCamera(segment index: Int) -> Bool {
        !outages.contains { $0.contains(segment: index) }
    }

    /// The marks the camera's segment `index` will carry (the close of an outage it ends), asked
    /// before it is listed, for its parts: without changing anything.
    public func cameraMarks(ofSegment index: Int) -> SegmentMarks {
        for outage in outages.reversed() where outage.firstLiveSegment == index {
            guard let restoredAt = outage.restoredAt else { continue }
            return SegmentMarks(dateRanges: [DateRange.inputLost(since: outage.since, until: restoredAt)], discontinuity: true)
        }
        return SegmentMarks()
    }

    public mutating func treatment(ofSegment index: Int, variant: String) -> Treatment {
        for i in outages.indices.reversed() {
            let outage = outages[i]
            if outage.contains(segment: index) {
                let opening = outages[i].opened.insert(variant).inserted
                let ranges = opening ? [DateRange.inputLost(since: outage.since)] : []
                switch policy {
                case .slate: return .slate(SegmentMarks(dateRanges: ranges))
                case .gap: return .slate(SegmentMarks(asGap: true, dateRanges: ranges))
                case .stale: return .withheld
                }
            }
            if outage.firstLiveSegment == index, let restoredAt = outage.restoredAt {
                // The closing tag; with `stale` nothing carried the opening one, so this one is all.
                return .firstAfterOutage(SegmentMarks(dateRanges: [DateRange.inputLost(since: outage.since, until: restoredAt)], discontinuity: true))
            }
        }
        defer { inputUnavailable = false }
        return .camera(backFromUnavailable: inputUnavailable)
    }
}

/// What a real segment's entry carries besides the segment itself, added by the input-loss
/// plan: EXT-X-GAP instead of the file, date ranges before it, a discontinuity.
public struct SegmentMarks: Sendable, Equatable {
    public var asGap: Bool
    public var dateRanges: [DateRange]
    public var discontinuity: Bool

    public init(asGap: Bool = false, dateRanges: [DateRange] = [], discontinuity: Bool = false) {
        self.asGap = asGap
        self.dateRanges = dateRanges
        self.discontinuity = discontinuity
    }
}
