import SidelineConfig
import SidelineCore
import StreamPushing

extension PushSession {
    /// What push goes by: the config's ladder (the encoders' configured rates) and what the
    /// uploader makes of the config.
    public struct Settings: Sendable {
        /// Best first: the config's ladder.
        public var ladder: [Rung]
        public var uploader: PushUploader.Settings

        /// From the config (`push`, `video`, `audio`, `segment_duration`) for `stream`.
        public init(configuration: SidelineConfiguration, stream: StreamSettings, targetDuration: Int, hasAudio: Bool, metadata: StreamMetadata?) {
            ladder = stream.video.ladder
            let audioBitRate = hasAudio ? configuration.audio.bitrate.bitsPerSecond : 0
            // Rungs never go above their configured rates, so more than the ladder's total is never used.
            let ladderTotal = ladder.reduce(0) { $0 + $1.bitrate.bitsPerSecond }
            uploader = PushUploader.Settings(
                rungs: ladder.map { .init(name: $0.name, bitRate: $0.bitrate.bitsPerSecond) },
                // BANDWIDTH in the master: each rung's peak with its audio.
                peakBitRates: Dictionary(uniqueKeysWithValues: ladder.map { ($0.name, $0.maxrate.bitsPerSecond + audioBitRate) }),
                segmentDuration: configuration.segmentDuration, targetDuration: targetDuration, audioBitRate: audioBitRate,
                rule: UploadBitRate(ratio: configuration.push.ratio), minimum: configuration.push.minBitrate.bitsPerSecond,
                maximum: min(configuration.push.maxBitrate?.bitsPerSecond ?? ladderTotal, ladderTotal), backlog: configuration.push.backlog, metadata: metadata)
        }
    }

    /// What the status line shows.
    public struct Status: Sendable {
        /// Bits per second the last measured uploads went up at; nil before any.
        public var uploadBitRate: Int?
        public var plan: PushLadder.Plan
        /// Segments held (every rung), and how old the oldest is.
        public var queued: Int
        public var oldestUnsent: Double?
        /// Capture of a segment's last frame to the server listing it, the last one measured.
        public var latency: Double?
        public var acknowledged: Int
        public var lastFailure: String?

        public init(uploadBitRate: Int?, plan: PushLadder.Plan, queued: Int, oldestUnsent: Double?, latency: Double?, acknowledged: Int, lastFailure: String?) {
            self.uploadBitRate = uploadBitRate
            self.plan = plan
            self.queued = queued
            self.oldestUnsent = oldestUnsent
            self.latency = latency
            self.acknowledged = acknowledged
            self.lastFailure = lastFailure
        }
    }
}
