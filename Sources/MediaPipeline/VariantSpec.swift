/// How one rung of the ladder is encoded. A plain value, so MediaPipeline does not depend on
/// the config module; the CLI maps the config onto it.
public struct VariantSpec: Sendable, Equatable {
    public var name: String
    public var width: Int
    public var height: Int
    public var bitrate: Int
    public var maxrate: Int
    public var bufsize: Int
    public var preset: String
    public var profile: String
    /// x264's rc-lookahead in frames; nil keeps the preset's. Each frame of lookahead delays
    /// every segment's publication by one frame interval.
    public var lookahead: Int?

    public init(name: String, width: Int, height: Int, bitrate: Int, maxrate: Int, bufsize: Int, preset: String, profile: String, lookahead: Int? = nil) {
        self.lookahead = lookahead
        self.name = name
        self.width = width
        self.height = height
        self.bitrate = bitrate
        self.maxrate = maxrate
        self.bufsize = bufsize
        self.preset = preset
        self.profile = profile
    }
}

/// Audio encoding settings (AAC-LC), shared by the whole ladder.
public struct AudioSpec: Sendable, Equatable {
    public var bitrate: Int
    public var sampleRate: Int
    public var channels: Int
    public init(bitrate: Int, sampleRate: Int, channels: Int) {
        self.bitrate = bitrate
        self.sampleRate = sampleRate
        self.channels = channels
    }
}
