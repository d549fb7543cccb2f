/// What the master playlist needs to know about a variant, taken from the encoder's output.
public struct VariantFormat: Sendable, Equatable {
    /// RFC 6381 codec strings, video first: `avc1.64001f`, and `mp4a.40.2` when there is audio.
    public var codecs: [String]
    public var width: Int
    public var height: Int
    public var frameRate: Double

    public init(codecs: [String], width: Int, height: Int, frameRate: Double) {
        self.codecs = codecs
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }
}
