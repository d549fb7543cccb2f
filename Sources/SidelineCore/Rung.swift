/// One rung of the adaptive-bit-rate ladder, the same value from the config (`video.ladder`)
/// to the encoder that makes it (MediaPipeline) and to the BANDWIDTH the master advertises for
/// it (StreamPublishing's `RungRates`).
public struct Rung: Sendable, Equatable {
    /// `name`: the `{variant}` of its URLs.
    public var name: String
    public var width: Int
    public var height: Int
    /// `bitrate`: the average video bit rate.
    public var bitrate: BitRate
    /// `maxrate` and `bufsize`: the VBV model that bounds the peak (and so BANDWIDTH).
    public var maxrate: BitRate
    public var bufsize: BitRate
    /// `preset`: one of `Rung.presets`.
    public var preset: String

    /// x264's presets, fastest first: what `preset` may be, and the order effort steps down in.
    public static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
    /// `profile`: baseline, main or high.
    public var profile: String
    /// `lookahead`: x264's rc-lookahead in frames; nil keeps the preset's. Each frame of
    /// lookahead delays every segment's publication by one frame interval; more let rate
    /// control plan better.
    public var lookahead: Int?

    public init(name: String, width: Int, height: Int, bitrate: BitRate, maxrate: BitRate, bufsize: BitRate, preset: String, profile: String,
                lookahead: Int? = nil) {
        self.name = name
        self.width = width
        self.height = height
        self.bitrate = bitrate
        self.maxrate = maxrate
        self.bufsize = bufsize
        self.preset = preset
        self.profile = profile
        self.lookahead = lookahead
    }
}
