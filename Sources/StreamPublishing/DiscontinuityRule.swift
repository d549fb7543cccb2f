import SidelineCore

/// Where a variant's entries carry EXT-X-DISCONTINUITY, the one place this is decided (for
/// `SlotPublisher`): which changes of source need a tag, and which sources are the rung's own
/// format on the grid's timestamps.
struct DiscontinuityRule: Sendable {
    let universal: Bool
    let aligns: Bool
    let standInsMatchTheEncoding: Bool
    /// Set by each run (`SlotPublisher.beginRun`): whether its stand-ins are its own format (its
    /// audio is the stand-in's: a camera that lost or gained its sound is another number of
    /// tracks, tagged).
    var standInMatchesRun = true

    init(settings: SlotPublishingSettings) {
        universal = settings.setTimeline?.isUniversal == true
        aligns = settings.alignsDiscontinuities
        standInsMatchTheEncoding = settings.standInsMatchTheEncoding
    }

    /// Whether a stand-in joins untagged and is passed over when the next change of source is
    /// judged: it is encoded as the rung is, on its slot's timestamps, and tags are aligned.
    var standInJoinsUntagged: Bool { aligns && isTheGridsOwnFormat(.standIn) }

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
    /// newest entry with pictures (`SlotPublisher.discontinuity(of:at:from:)`), judged by format as above.
    func startsDiscontinuity(_ source: EntrySource, after previous: EntrySource?, jump: Bool = false) -> Bool {
        if source == .gap { return jump && !universal }
        // A stand-in encoded as the rung is, on its slot's timestamps, joins untagged on any
        // timeline; what follows it is judged against what came before it.
        if !universal && source == .standIn && standInJoinsUntagged { return jump }
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
        case .standIn: standInsMatchTheEncoding && standInMatchesRun
        case .sibling: false
        }
    }
}
