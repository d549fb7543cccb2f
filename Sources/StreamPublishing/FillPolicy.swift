/// What fills a failed variant's slots (`stream.on_variant_failure`).
public enum FailedVariantFill: String, Sendable, Equatable, CaseIterable {
    /// The same slot of the nearest healthy sibling (the real pictures at another quality),
    /// between EXT-X-DISCONTINUITY tags. Every player measured plays through it.
    case sibling
    /// The stand-in card of the variant itself.
    case standin
    /// EXT-X-GAP entries, and the master served to new clients leaves the variant out
    /// (Apple's semantics; only hls.js plays through it).
    case gap
}

/// What fills a slot whose segment is late (`stream.on_late_segment`): a stalled pipeline,
/// a watchdog restart, a restarted process before its pipeline delivers.
public enum LateSegmentFill: String, Sendable, Equatable, CaseIterable {
    /// The stand-in card, so the playlist keeps its cadence.
    case standin
    /// Nothing: the playlist stops advancing and answers 404 once stale (Apple's semantics).
    case stale
}
