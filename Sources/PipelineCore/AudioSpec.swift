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
