/// Turns input frames with arbitrary timestamps into a constant-frame-rate sequence of output
/// frame indices: a frame that arrives early for its slot is dropped, a small hole is filled
/// by repeating the frame that ends it, and a large jump in the input's timestamps (a wrap, a
/// camera clock reset, a splice) is absorbed by shifting the mapping so output time stays
/// continuous. Pure logic, so every case is tested without FFmpeg.
public struct FrameRateConformer: Sendable {
    public let frameRate: FrameRate
    /// Holes longer than this (in seconds) count as timestamp jumps, not missing frames.
    public let maximumGap: Double
    public private(set) var nextIndex: Int64 = 0
    /// Added to input time; changes at each jump.
    public private(set) var offset: Double = 0
    public private(set) var dropped = 0
    public private(set) var repeated = 0
    public private(set) var jumps = 0
    /// Set by `reanchor()`: the next frame becomes the next output frame, whatever its time.
    private var reanchorNext = false

    /// `startIndex`: the output frame the first input frame fills (a pipeline that continues a
    /// stream's timeline starts where its slot starts, not at zero).
    public init(frameRate: FrameRate, maximumGap: Double = 1.0, startIndex: Int64 = 0) {
        self.frameRate = frameRate
        self.maximumGap = maximumGap
        self.nextIndex = startIndex
        self.reanchorNext = startIndex != 0
    }

    /// A new input follows (a reopened camera, the slate): its first frame takes the next
    /// output slot, so output time stays continuous. Not counted as a jump.
    public mutating func reanchor() { reanchorNext = true }

    /// The output frame indices the frame with input time `inputTime` (seconds) fills; an
    /// empty range means drop it.
    public mutating func place(inputTime: Double) -> Range<Int64> {
        let target = Int64(((inputTime + offset) * frameRate.value).rounded())
        let maximumGapFrames = Int64((maximumGap * frameRate.value).rounded())
        let range: Range<Int64>
        if reanchorNext {
            reanchorNext = false
            offset += Double(nextIndex - target) / frameRate.value
            range = nextIndex..<(nextIndex + 1)
        } else if abs(target - nextIndex) > maximumGapFrames {
            // Re-anchor: this frame becomes the next output frame.
            offset += Double(nextIndex - target) / frameRate.value
            jumps += 1
            range = nextIndex..<(nextIndex + 1)
        } else if target < nextIndex {
            dropped += 1
            return nextIndex..<nextIndex
        } else {
            repeated += Int(target - nextIndex)
            range = nextIndex..<(target + 1)
        }
        nextIndex = range.upperBound
        return range
    }
}
