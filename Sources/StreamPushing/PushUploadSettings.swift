import SidelineCore

/// What the uploader goes by (`PushUploader.Settings`): the ladder, the segment timing, `push:`'s section.
public struct PushUploadSettings: Sendable, Equatable {
    /// Best first: the config's ladder, each rung's configured video bit rate.
    public var rungs: [PushLadder.Rung]
    /// Each rung's BANDWIDTH in the master: its peak (maxrate) with its audio.
    public var peakBitRates: [String: Int]
    public var segmentDuration: Double
    public var targetDuration: Int
    /// The AAC bit rate every rung carries (0 without audio).
    public var audioBitRate: Int
    public var rule: UploadBitRate
    /// `push.min_bitrate`, and `push.max_bitrate` within the ladder's total.
    public var minimum: Int
    public var maximum: Int
    public var backlog: PushBacklog
    /// Title, description and keywords to send before anything else; nil: none given.
    public var metadata: StreamMetadata?

    public init(rungs: [PushLadder.Rung], peakBitRates: [String: Int], segmentDuration: Double, targetDuration: Int, audioBitRate: Int,
                rule: UploadBitRate, minimum: Int, maximum: Int, backlog: PushBacklog, metadata: StreamMetadata?) {
        self.rungs = rungs
        self.peakBitRates = peakBitRates
        self.segmentDuration = segmentDuration
        self.targetDuration = targetDuration
        self.audioBitRate = audioBitRate
        self.rule = rule
        self.minimum = minimum
        self.maximum = maximum
        self.backlog = backlog
        self.metadata = metadata
    }

    public var ladder: PushLadder { PushLadder(rungs: rungs, audioBitRate: audioBitRate, minimum: minimum, maximum: maximum) }

    /// An upload may take this long before it is given up: a segment on a slow link takes
    /// most of a segment duration, and a cut link answers nothing at all.
    public var uploadLimit: Double { max(10, segmentDuration * 4) }

    /// How long a stopped push goes on sending what is queued: a couple of segments' uploads.
    public var drainSeconds: Double { max(5, segmentDuration * 2) }
}

extension PushUploader {
    public typealias Settings = PushUploadSettings
}
