/// Turns input frames with arbitrary timestamps into a constant-frame-rate sequence of output
/// frame indices: a frame that arrives early for its slot is dropped, a small hole is filled
/// by repeating the frame that ends it, and a large jump in the input's timestamps (a wrap, a
/// camera clock reset, a splice) is absorbed by shifting the mapping so output time stays
/// continuous. Pure logic, so every case is tested without FFmpeg.
///
/// An angle of a set places frames by when they reached the server too (`place(inputTime:arrival:)`,
/// arrival in seconds since the set's epoch): the run's first frame (and a new input's) goes to
/// the output frame of its arrival, and from then on output time follows the input's timestamps
/// (smooth, whatever the network's jitter) but stays locked to arrival time: when the camera's
/// clock drifts so that the least lag (`ArrivalLag`) moves more than `driftTolerance` frames
/// from where frames are placed, one frame is dropped or repeated.
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
    /// Frames dropped or repeated to keep output time on arrival time (`place(inputTime:arrival:)`).
    public private(set) var driftCorrections = 0
    /// How far (in frames) placement may stray from arrival time before a frame is dropped or
    /// repeated: half a frame, so with rounding to the frame grid a frame is never more than
    /// one frame from its arrival.
    public var driftTolerance = 0.5
    private var lag = ArrivalLag()
    /// Whether `place(inputTime:arrival:)` has placed the run's first frame.
    private var startedOnArrival = false
    /// Input time until which placement settles (`place(inputTime:arrival:)`): a run's (or a new
    /// input's) first window of frames, whose first lags are the worst (the decoder starting).
    private var settlingUntil: Double?

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
        let target = index(of: inputTime + offset)
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
        } else {
            return fill(to: target)
        }
        nextIndex = range.upperBound
        return range
    }

    /// Places a frame of an angle of a set: `inputTime` as for `place(inputTime:)`, `arrival`
    /// when it reached the server, in seconds since the set's epoch (output time 0).
    public mutating func place(inputTime: Double, arrival: Double) -> Range<Int64> {
        if !startedOnArrival {
            // Frames before the run's first slot are not sent, but their lags count: a camera's
            // first frames often reach the server late (the input and its decoder starting up),
            // and a run placed by its first frame alone would start late and drop frames back
            // to arrival time during its first slots.
            let least = lag.observe(inputTime: inputTime, lag: arrival - inputTime)
            offset = least
            reanchorNext = false
            let target = index(of: arrival)
            // Before the run's first slot starts: not yet (its sound is placed on the set's
            // time already, so the muxer leaves it out as it leaves out audio before video).
            if target < nextIndex {
                dropped += 1
                return nextIndex..<nextIndex
            }
            startedOnArrival = true
            settlingUntil = inputTime + lag.window
            // Nothing is out yet: a first frame well into the slot starts where it belongs.
            let placed = index(of: inputTime + offset)
            if placed - nextIndex > maximumGapFrames { nextIndex = placed }
            return fill(to: max(placed, nextIndex))
        }
        if !reanchorNext && abs(index(of: inputTime + offset) - nextIndex) > maximumGapFrames {
            jumps += 1
            reanchorNext = true
        }
        if reanchorNext {
            reanchorNext = false
            lag.reset()
            _ = lag.observe(inputTime: inputTime, lag: arrival - inputTime)
            offset = arrival - inputTime
            settlingUntil = inputTime + lag.window
            let target = index(of: arrival)
            if abs(target - nextIndex) > maximumGapFrames {
                // Too far from where output stands to go there at once: carry on from it, and
                // the lock below brings it to arrival time a frame at a time.
                offset += Double(nextIndex - target) / frameRate.value
            }
        } else {
            let least = lag.observe(inputTime: inputTime, lag: arrival - inputTime)
            let frame = frameRate.frameDuration
            if let until = settlingUntil, inputTime < until {
                // Settling: each frame goes where the best estimate so far puts it, not where
                // the run's first (late) frames did, so two servers fed the same camera (a
                // redundant pair) place it alike from a run's first seconds on, not only once a
                // drift of half a frame moves one of them (Docs/benchmarks.md, the spread).
                // The offset is the estimate itself, so the half-frame lock that follows starts
                // from it.
                if index(of: inputTime + least) != index(of: inputTime + offset) { driftCorrections += 1 }
                offset = least
            } else if least - offset > driftTolerance * frame {
                offset += frame
                driftCorrections += 1
            } else if offset - least > driftTolerance * frame {
                offset -= frame
                driftCorrections += 1
            }
        }
        return fill(to: index(of: inputTime + offset))
    }

    /// Places a frame whose output frame is `target`: dropped when output is past it already,
    /// repeated to fill a small hole before it.
    private mutating func fill(to target: Int64) -> Range<Int64> {
        if target < nextIndex {
            dropped += 1
            return nextIndex..<nextIndex
        }
        repeated += Int(target - nextIndex)
        let range = nextIndex..<(target + 1)
        nextIndex = range.upperBound
        return range
    }

    /// Saturating: a timestamp from the network may be anything.
    private func index(of time: Double) -> Int64 {
        let frames = (time * frameRate.value).rounded()
        guard frames.isFinite else { return nextIndex }
        return Int64(min(max(frames, -9e15), 9e15))
    }

    private var maximumGapFrames: Int64 { Int64((maximumGap * frameRate.value).rounded()) }
}
