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

    /// How long past its due time a slot waits for its real segment, in seconds; see
    /// `Docs/status-codes.md` ("Stand-ins") for the publish latencies it was chosen against.
    public static let defaultGrace = 1.0
}

/// What the playlists carry while a live input is lost (see Docs/status-codes.md).
public enum InputLossPolicy: String, Sendable, Equatable, CaseIterable {
    /// Real segments showing a "signal lost" card with the time since the loss, and silence:
    /// every player keeps playing.
    case slate
    /// EXT-X-GAP entries of the segments' duration: hls.js skips them; other players stall.
    case gap
    /// Nothing: the playlists stop advancing and answer 404 once stale.
    case stale
}


/// What `sideline push` sends first when its uplink returns after a cut (`push.backlog`).
public enum PushBacklog: String, Sendable, Equatable, CaseIterable {
    /// Everything in order, oldest first: the live edge waits until the backlog is through.
    case catchUp = "catch-up"
    /// The live edge first, whenever there is a new segment; the backlog, oldest first, in
    /// between. Players see live again at once; the recording fills in behind.
    case liveFirst = "live-first"
}
