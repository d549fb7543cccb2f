import Foundation
import SidelineCore

/// What the publishing core answers about its variants without changing anything (and the one
/// late-segment question that does): what the master lists, which variants failed, which slot
/// each takes next.
extension SlotPublisher {
    /// The variants the master lists now, best first; nil until every variant it would list
    /// has a playlist that answers 200 (at least one entry).
    public var masterVariants: [String]? {
        let listed = settings.variants.filter { !shedNow.contains($0) && !(variants[$0]!.failed && settings.onVariantFailure == .gap) }
        guard !listed.isEmpty, listed.allSatisfy({ variants[$0]!.entries > 0 }) else { return nil }
        return listed
    }

    public func isFailed(_ variant: String) -> Bool { variants[variant]?.failed ?? false }

    /// Whether `segmentArrived` would list `variant`'s segment for `slot` (its slot is not filled).
    public func accepts(variant: String, slot: Int) -> Bool { variants[variant].map { slot >= $0.next } ?? false }

    /// `variant`'s real segment for `slot` came after the slot was filled (`segmentArrived`
    /// refused it). With `lateSegmentsReplaceFills`, the recording takes it in the fill's place,
    /// once: returns the entry (its index among the variant's entries) it replaces. Nil when
    /// replacing is off, or the slot holds a real segment, was replaced already, or was never
    /// filled by this process. The live playlist is not touched: it only grows.
    public mutating func takeLate(variant: String, slot: Int) -> Int? {
        guard settings.lateSegmentsReplaceFills, variants[variant]?.replaceable.remove(slot) != nil,
              let entry = timeline.entry(ofSlot: slot), timeline.slot(ofEntry: entry) == slot else { return nil }
        return entry
    }

    /// Whether `variant` published parts of `slot`: its entry will be its own segment, whatever
    /// the input-loss plan says of it.
    public func hasPublishedParts(variant: String, slot: Int) -> Bool { variants[variant]?.opened?.entry.slot == slot }

    /// The first slot `variant` has not listed.
    public func nextSlot(of variant: String) -> Int? { variants[variant]?.next }

    /// Whether an entry from `source` listed after one from `previous` starts with
    /// EXT-X-DISCONTINUITY, the one place this is decided: where the source changes (another
    /// run of the encoder, a stand-in, a sibling's picture, the first entry after an earlier
    /// process's), or `jump` says the timestamps move (slots skipped, an input back after an
    /// outage). On the universal grid (issue 35) only another format is one (a sibling's
    /// picture, another rung's size and rate; a pushed stream's stand-in, another encoder's):
    /// every timestamp there is the grid's, continuous whatever ran or was skipped, and a tag
    /// there would be this box's alone, so the same segment would have another Discontinuity
    /// Sequence Number on each box of a pair, which RFC 8216 §6.2.4 forbids for matching content
    /// (VLC ended its stream at such a move through the edge). A stand-in of a stream this box
    /// encodes is the rung's own format on its slot's timestamps (`standInsMatchTheEncoding`),
    /// as the other box's segments are to a player moved there: no tag, as at that move.
    ///
    /// A GAP entry has no pictures: it never needs a tag of its own (but where slots were skipped
    /// off the universal grid). Off that grid, what follows one is a new coded sequence (its
    /// encoder was set up again, or another source comes), tagged; on it, `previous` is the
    /// newest entry with pictures (`discontinuity(of:at:from:)`), judged by format as above.
    func startsDiscontinuity(_ source: EntrySource, after previous: EntrySource?, jump: Bool = false) -> Bool {
        let universal = settings.setTimeline?.isUniversal == true
        if source == .gap { return jump && !universal }
        // A stand-in encoded as the rung is, on its slot's timestamps, joins untagged on any
        // timeline; what follows it is judged against what came before it.
        if !universal && settings.alignsDiscontinuities && source == .standIn && isTheGridsOwnFormat(.standIn) { return jump }
        let changed = previous.map { $0 != source } ?? false
        guard universal else { return jump || changed }
        guard changed, let previous else { return false }
        return !(isTheGridsOwnFormat(previous) && isTheGridsOwnFormat(source))
    }

    /// This box's own encoder (any run), an earlier process's entries, no media (GAP), or a
    /// stand-in encoded as the rung is: on the universal grid, the rung's format on timestamps
    /// that follow the grid without a jump between them.
    func isTheGridsOwnFormat(_ source: EntrySource) -> Bool {
        switch source {
        case .real, .restored, .gap: true
        case .standIn: settings.standInsMatchTheEncoding && standInMatchesRun
        case .sibling: false
        }
    }
}
