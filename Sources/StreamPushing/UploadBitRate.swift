/// The bit rate `sideline push` encodes its next segments at, from how fast the last one went
/// up: the rule of a broadcaster's field app (RTS Express Live), next bit rate = last bit rate
/// x segment duration / upload time x ratio, clamped. The app estimated the segment's bits
/// from its bit rate (last x duration); `push` knows the bytes it sent, so it uses them:
/// next = bits sent / upload time x ratio. Pure.
public struct UploadBitRate: Sendable, Equatable {
    /// The share of the measured throughput the next segments may use (the app's 0.7): the
    /// rest is headroom for the playlist, retries and a link that varies.
    public var ratio: Double
    /// Bits per second, for all the video of a segment together (every rung pushed).
    public var minimum: Int
    public var maximum: Int

    public init(ratio: Double = 0.7, minimum: Int = 1_000, maximum: Int = 3_000_000) {
        precondition(ratio > 0 && minimum > 0 && maximum >= minimum)
        self.ratio = ratio
        self.minimum = minimum
        self.maximum = maximum
    }

    /// The video bit rate for the next segments, after `bytes` went up in `uploadSeconds`
    /// (an upload too fast to time allows the maximum).
    public func next(afterUploading bytes: Int, in uploadSeconds: Double) -> Int {
        guard uploadSeconds > 0 else { return maximum }
        let carried = Double(bytes * 8) / uploadSeconds * ratio
        return min(maximum, max(minimum, Int(carried.rounded(.down))))
    }
}
