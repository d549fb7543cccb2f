/// Where the segment boundaries fall on the output frame grid. Segment k covers
/// [k x D, (k+1) x D) of output time and starts on the first frame at or after k x D; every
/// variant uses the same clock, so segment k of every variant covers the same media.
public struct SegmentClock: Sendable, Equatable {
    public let frameRate: FrameRate
    public let segmentDuration: Double

    public init(frameRate: FrameRate, segmentDuration: Double) {
        precondition(segmentDuration > 0)
        self.frameRate = frameRate
        self.segmentDuration = segmentDuration
    }

    /// The segment that frame `index` belongs to. Computed in integers where D is a whole
    /// number of milliseconds, so that no rounding can move a boundary.
    public func segment(ofFrame index: Int64) -> Int {
        // frame time = index * den / num; segment = floor(time / D) with D = ms / 1000.
        let milliseconds = Int64((segmentDuration * 1000).rounded())
        let numerator = index * Int64(frameRate.denominator) * 1000
        let denominator = Int64(frameRate.numerator) * milliseconds
        return Int(numerator / denominator)
    }

    /// The first frame at or after k x D: where segment k starts (in integers, as above).
    public func firstFrame(ofSegment k: Int) -> Int64 {
        let milliseconds = Int64((segmentDuration * 1000).rounded())
        let numerator = Int64(k) * milliseconds * Int64(frameRate.numerator)
        let denominator = Int64(frameRate.denominator) * 1000
        return (numerator + denominator - 1) / denominator
    }

    /// Output time (seconds) of segment k's first frame: where it starts on the timeline.
    public func startTime(ofSegment k: Int) -> Double { frameRate.time(ofFrame: firstFrame(ofSegment: k)) }

    /// The fewest frames any segment holds: D x frame rate, rounded down. At 30000/1001 and
    /// D = 2, segments hold 59 or 60 frames; a stand-in of 59 never overlaps the next slot.
    public var minimumFramesPerSegment: Int64 {
        let milliseconds = Int64((segmentDuration * 1000).rounded())
        return milliseconds * Int64(frameRate.numerator) / (Int64(frameRate.denominator) * 1000)
    }

    /// True for the first frame of every segment: the frames that must be IDRs.
    public func startsSegment(frame index: Int64) -> Bool {
        index == 0 || segment(ofFrame: index) != segment(ofFrame: index - 1)
    }

    /// The largest number of frames any segment can hold (for the encoder's GOP length).
    public var maximumFramesPerSegment: Int {
        Int((segmentDuration * frameRate.value).rounded(.up))
    }
}
