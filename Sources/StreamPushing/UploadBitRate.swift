/// What the link carries for `sideline push`'s next segments, from how fast the last ones went
/// up: the rule of a broadcaster's field app (RTS Express Live), next bit rate = last bit rate
/// x segment duration / upload time x ratio. The app estimated the segment's bits from its bit
/// rate (last x duration); `push` knows the bytes it sent, so it uses them: what the next
/// segments may use = bits sent / upload time x ratio, for every rung and its audio together.
/// `PushLadder` shares that out. Pure.
public struct UploadBitRate: Sendable, Equatable {
    /// The share of the measured throughput the next segments may use (the app's 0.7): the
    /// rest is headroom for the playlist, retries and a link that varies.
    public var ratio: Double

    public init(ratio: Double = 0.7) {
        precondition(ratio > 0 && ratio <= 1)
        self.ratio = ratio
    }

    /// Bits per second the next segments may use after `bytes` went up in `uploadSeconds`;
    /// nil when the upload was too fast to time (the link is not what limits).
    public func next(afterUploading bytes: Int, in uploadSeconds: Double) -> Int? {
        guard uploadSeconds > 0.000_5 else { return nil }
        return Int((Double(bytes * 8) / uploadSeconds * ratio).rounded(.down))
    }
}
