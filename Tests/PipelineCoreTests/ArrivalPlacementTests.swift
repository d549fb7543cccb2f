import PipelineCore
import Testing

/// An angle of a set places frames by when they reached the server (seconds since the set's
/// epoch), on injected (input time, arrival) pairs: no clock, no sleeping.
@Suite struct ArrivalPlacementTests {
    let rate = FrameRate(30)
    let clock = SegmentClock(frameRate: FrameRate(30), segmentDuration: 2)

    /// A conformer for a run that starts at slot `slot`.
    func conformer(slot: Int) -> FrameRateConformer {
        FrameRateConformer(frameRate: rate, startIndex: clock.firstFrame(ofSegment: slot))
    }

    /// The least lag over the window: a late frame does not move it, an earlier lag does at
    /// once, and a low lag leaves it once it is older than the window.
    @Test func leastLagOverTheWindow() {
        var lag = ArrivalLag(window: 2)
        #expect(lag.observe(inputTime: 0, lag: 0.050) == 0.050)
        #expect(lag.observe(inputTime: 0.5, lag: 0.120) == 0.050, "a frame held up does not move it")
        #expect(lag.observe(inputTime: 1.0, lag: 0.030) == 0.030)
        #expect(lag.observe(inputTime: 3.1, lag: 0.080) == 0.080, "0.030 (at 1.0 s) is older than the window")
        lag.reset()
        #expect(lag.observe(inputTime: 100, lag: 5) == 5)
    }

    /// The run's first frame goes to the output frame of its arrival: a frame that reached the
    /// server 10.5 s after the epoch is frame 315 at 30 fps, whatever its own timestamp. The run
    /// starts at slot 5 (frame 300): frames 300-314 repeat it (the slot's start, as a camera
    /// placed at a slot's start does today); later frames follow on.
    @Test func firstFrameGoesToItsArrival() {
        var placing = conformer(slot: 5)
        #expect(placing.place(inputTime: 7_777, arrival: 10.5) == 300..<316)
        #expect(placing.place(inputTime: 7_777 + 1.0 / 30, arrival: 10.5 + 1.0 / 30) == 316..<317)
        #expect(placing.offset == 10.5 - 7_777)
    }

    /// Frames that reach the server before the run's first slot starts are not used; a first
    /// frame well into the slot (more than `maximumGap`) starts where it belongs, not at the
    /// slot's start (nothing is out yet, so nothing needs the frames between).
    @Test func beforeTheFirstSlotIsDroppedAndFarIntoItStartsThere() {
        var early = conformer(slot: 5)
        #expect(early.place(inputTime: 0, arrival: 9.9).isEmpty)
        #expect(early.offset == 9.9, "sound read meanwhile is on the set's time already")
        #expect(early.place(inputTime: 0.1, arrival: 10.0) == 300..<301)
        #expect(early.dropped == 1)
        var late = conformer(slot: 5)
        #expect(late.place(inputTime: 0, arrival: 11.5) == 345..<346)
        #expect(late.repeated == 0)
    }

    /// Frames read before the run's first slot are not sent but teach the least lag: a camera
    /// whose frames take 0.1 s to arrive, and whose first frame after the slot's start is held
    /// up another 70 ms (its decoder starting, a busy box), starts at the slot's first frame,
    /// not two frames late with two repeats to be dropped back later.
    @Test func framesBeforeTheFirstSlotTeachTheLag() {
        var placing = conformer(slot: 5)
        for n in 0..<12 {
            #expect(placing.place(inputTime: Double(n) / 30, arrival: 9.6 + Double(n) / 30).isEmpty, "frame \(n) is before slot 5 (10.0 s)")
        }
        #expect(placing.place(inputTime: 12.0 / 30, arrival: 9.6 + 12.0 / 30 + 0.070) == 300..<301)
        #expect(placing.place(inputTime: 13.0 / 30, arrival: 9.6 + 13.0 / 30) == 301..<302)
        #expect(placing.repeated == 0 && placing.driftCorrections == 0)
        // Without the frames before the slot, the held-up frame is all it knows: it starts
        // where that frame arrived (frame 302, the slot's first two frames repeating it).
        var blind = conformer(slot: 5)
        #expect(blind.place(inputTime: 12.0 / 30, arrival: 9.6 + 12.0 / 30 + 0.070) == 300..<303)
    }

    /// Two angles started a second apart, with unrelated camera clocks: the frame that reached
    /// the server at any instant has the same output frame in both, within one frame.
    @Test func twoAnglesPutTheSameMomentOnTheSameFrame() {
        var a = conformer(slot: 5)
        var b = conformer(slot: 6)
        var placedA: [Int64: Double] = [:]
        var placedB: [Int64: Double] = [:]
        for n in 0..<600 {
            let arrivalA = 10.2 + Double(n) / 30
            for index in a.place(inputTime: 1_000 + Double(n) / 30, arrival: arrivalA) { placedA[index] = arrivalA }
            let arrivalB = 11.2 + Double(n) / 30 + 0.013 // another phase against the grid
            for index in b.place(inputTime: 55.5 + Double(n) / 30, arrival: arrivalB) { placedB[index] = arrivalB }
        }
        let both = Set(placedA.keys).intersection(placedB.keys).filter { $0 >= 400 }
        #expect(both.count > 300)
        for index in both {
            #expect(abs(placedA[index]! - placedB[index]!) <= 1.0 / 30 + 1e-9, "frame \(index)")
        }
    }

    /// A camera whose clock runs 0.1% fast (or slow) against the server's, ten times what a
    /// camera's crystal drifts: over 5 minutes its timestamps alone would put frames 0.3 s
    /// (9 frames) away from their arrival. Locked to arrival, every frame stays within one frame
    /// of it, by dropping (or repeating) one frame now and then.
    @Test(arguments: [(1 / 1.001, true), (1.001, false)])
    func driftingCameraClockIsHeldToArrival(arrivalPerInputSecond: Double, fast: Bool) {
        var placing = conformer(slot: 5)
        var worst = 0.0
        for n in 0..<9_000 {
            let input = Double(n) / 30
            let arrival = 10.0 + input * arrivalPerInputSecond
            let placed = placing.place(inputTime: input, arrival: arrival)
            if let own = placed.last { worst = max(worst, abs(rate.time(ofFrame: own) - arrival)) }
        }
        #expect(worst <= 1.0 / 30 + 1e-9, "worst \(worst)")
        #expect((8...10).contains(placing.driftCorrections), "\(placing.driftCorrections)")
        #expect((fast ? placing.dropped : placing.repeated) >= 8)
    }

    /// Network jitter (frames held up by 0-60 ms, never early) moves nothing: placement
    /// follows the least lag, so after settling on it no frame is dropped or repeated.
    @Test func jitterDoesNotMoveOutputTime() {
        var placing = conformer(slot: 5)
        let delays = [0.040, 0.0, 0.012, 0.060, 0.003, 0.025, 0.0, 0.051, 0.008, 0.033]
        var settled: (dropped: Int, repeated: Int)?
        for n in 0..<1_200 {
            let input = Double(n) / 30
            _ = placing.place(inputTime: input, arrival: 10.0 + input + delays[n % delays.count])
            if n == 60 { settled = (placing.dropped, placing.repeated) }
        }
        #expect(placing.dropped == settled?.dropped && placing.repeated == settled?.repeated)
        #expect(placing.driftCorrections <= 1, "the first frame came 40 ms late: at most one correction to the least lag")
    }

    /// A new input (the camera back after an outage, whose timestamps start again) is placed
    /// by its arrival too; and a jump in the camera's timestamps does not move output time.
    @Test func newInputAndTimestampJumpsFollowArrival() {
        var placing = conformer(slot: 5)
        for n in 0..<60 { _ = placing.place(inputTime: Double(n) / 30, arrival: 10.0 + Double(n) / 30) }
        #expect(placing.nextIndex == 360)
        placing.reanchor()
        // The new input's first frame reached the server at 12.1 s: frame 363 (the hole repeats it).
        #expect(placing.place(inputTime: 0, arrival: 12.1) == 360..<364)
        // The camera's clock jumps an hour: output follows arrival, as ever.
        #expect(placing.place(inputTime: 3_600, arrival: 12.1 + 1.0 / 30) == 364..<365)
        #expect(placing.jumps == 1)
    }

    /// A stream in no set is placed as before: the first frame at the slot's start.
    @Test func streamInNoSetIsPlacedAsBefore() {
        var placing = conformer(slot: 5)
        #expect(placing.place(inputTime: 7_777) == 300..<301)
        #expect(placing.place(inputTime: 7_777 + 1.0 / 30) == 301..<302)
    }

    /// Two servers fed the same camera (a redundant pair, issue 35): the camera's frames reach
    /// both 100 ms after capture, but box A's decoder holds its first 20 frames another 12 ms as
    /// it starts, and box B sees everything 3 ms later than A does. Placed by the run's first
    /// lags alone, A would put every frame one output frame after B for the whole run (12 ms
    /// moves this camera's phase past a frame boundary, 3 ms does not); settling on the best
    /// estimate over the run's first window, both put every later frame on the same output frame.
    @Test func twoServersOfOneCameraSettleOnTheSameFrames() {
        var a = conformer(slot: 5)
        var b = conformer(slot: 5)
        // The camera's phase against the 30 fps grid: (capture + 0.100 s) x 30 falls 0.35 into a frame.
        let phase = (0.35 - 0.5) / 30 + 1.0 / 60
        var placedA: [Int: Int64] = [:]
        var placedB: [Int: Int64] = [:]
        for n in 0..<300 {
            let input = Double(n) / 30
            let capture = 9.9 + phase + input
            let startingLate = n < 20 ? 0.012 : 0
            if let last = a.place(inputTime: input, arrival: capture + 0.100 + startingLate).last { placedA[n] = last }
            if let last = b.place(inputTime: input, arrival: capture + 0.103).last { placedB[n] = last }
        }
        let later = (150..<300).filter { placedA[$0] != nil && placedB[$0] != nil }
        #expect(later.count > 100)
        let apart = later.filter { placedA[$0] != placedB[$0] }
        #expect(apart.isEmpty, "frames A and B place apart after the first window: \(apart.prefix(5)) (A \(apart.first.flatMap { placedA[$0] } ?? -1), B \(apart.first.flatMap { placedB[$0] } ?? -1))")
        #expect(a.driftCorrections <= 1 && b.driftCorrections == 0, "A moved once, to the better estimate: \(a.driftCorrections), \(b.driftCorrections)")
    }
}

