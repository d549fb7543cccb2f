/// `clips`: what a viewer's clip request may make the server keep. A clip is remuxed into a
/// scratch file before it is sent; these bound how long, how many at once and how much disk.
public struct ClipSettings: Sendable, Equatable {
    /// `clips.max_duration`: the longest clip in seconds; a longer range is refused 400.
    public var maxDuration: Double = 600
    /// `clips.max_in_progress`: clips being made or sent at once; more are refused 503.
    public var maxInProgress = 4
    /// `clips.scratch_limit_mb`: megabytes of scratch files (clips being made or sent) at once;
    /// a clip that would pass it is refused 503.
    public var scratchLimitMegabytes = 2048
    public init() {}
}

/// `ingest`: what remote encoders pushing streams may make the server hold.
public struct IngestSettings: Sendable, Equatable {
    /// `ingest.max_uploads_in_flight`: uploads being received or handled at once (all pushed
    /// streams); more are refused 503 with Retry-After.
    public var maxUploadsInFlight = 16
    /// `ingest.max_buffered_mb`: megabytes of upload bodies held in memory at once (all pushed
    /// streams); an upload that would pass it is refused 503 with Retry-After.
    public var maxBufferedMegabytes = 256
    /// `ingest.max_pending_segments`: segments one pushed stream keeps received but not yet
    /// listed by a playlist; more are refused 503 until a playlist lists them.
    public var maxPendingSegments = 64
    /// `ingest.max_unplaced_segments`: late segments with no slot kept aside under
    /// `<stream>/unplaced/<variant>/` for an operator; past it more are dropped and logged.
    public var maxUnplacedSegments = 256
    public init() {}
}

extension SidelineConfiguration {
    static func clipSettings(from section: inout ConfigSection) throws(ConfigError) -> ClipSettings {
        var clips = ClipSettings()
        clips.maxDuration = try section.double("max_duration", in: 1...86_400) ?? clips.maxDuration
        clips.maxInProgress = try section.int("max_in_progress", in: 1...1000) ?? clips.maxInProgress
        clips.scratchLimitMegabytes = try section.int("scratch_limit_mb", in: 1...10_000_000) ?? clips.scratchLimitMegabytes
        try section.rejectUnknownKeys()
        return clips
    }

    static func ingestSettings(from section: inout ConfigSection) throws(ConfigError) -> IngestSettings {
        var ingest = IngestSettings()
        ingest.maxUploadsInFlight = try section.int("max_uploads_in_flight", in: 1...10_000) ?? ingest.maxUploadsInFlight
        // At least one whole upload (64 MiB) must fit, or every large segment would be refused.
        ingest.maxBufferedMegabytes = try section.int("max_buffered_mb", in: 64...1_000_000) ?? ingest.maxBufferedMegabytes
        ingest.maxPendingSegments = try section.int("max_pending_segments", in: 1...100_000) ?? ingest.maxPendingSegments
        ingest.maxUnplacedSegments = try section.int("max_unplaced_segments", in: 0...1_000_000) ?? ingest.maxUnplacedSegments
        try section.rejectUnknownKeys()
        return ingest
    }
}
