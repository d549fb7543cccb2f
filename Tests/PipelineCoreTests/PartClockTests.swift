import PipelineCore
import Testing

/// Where parts fall on the frame grid: rows of frame rates and durations, checked against the
/// segment clock and the draft's bounds on part durations.
@Suite struct PartClockTests {
    static func clock(_ numerator: Int, _ denominator: Int = 1, segment: Double = 2, part: Double) -> PartClock {
        PartClock(segments: SegmentClock(frameRate: FrameRate(numerator: numerator, denominator: denominator), segmentDuration: segment), partDuration: part)!
    }

    /// Part durations that cannot cut a segment make no clock, never a division by zero.
    @Test(arguments: [0.0, -1, 0.0004, 2.5, .nan, .infinity, 0.001])
    func aPartDurationThatCannotCutTheSegmentMakesNoClock(part: Double) {
        // 2 s in parts of 1 ms would be 2,000 parts: more than a part URI can number.
        #expect(PartClock(segments: SegmentClock(frameRate: FrameRate(30), segmentDuration: 2), partDuration: part) == nil)
    }

    @Test func theShortestAndLongestPartsThatCutASegment() {
        let segments = SegmentClock(frameRate: FrameRate(30), segmentDuration: 2)
        #expect(PartClock(segments: segments, partDuration: 0.002)?.partsPerSegment == 1000)
        #expect(PartClock(segments: segments, partDuration: 2)?.partsPerSegment == 1)
    }

    @Test func partsAtThirtyFramesASecondAreFifteenFramesEach() {
        let clock = Self.clock(30, part: 0.5)
        #expect(clock.partsPerSegment == 4)
        #expect((0...4).map { clock.firstFrame(ofPart: $0, inSegment: 0) } == [0, 15, 30, 45, 60])
        #expect(clock.firstFrame(ofPart: 0, inSegment: 3) == 180)
        #expect(clock.position(ofFrame: 0) == (0, 0))
        #expect(clock.position(ofFrame: 14) == (0, 0))
        #expect(clock.position(ofFrame: 15) == (0, 1))
        #expect(clock.position(ofFrame: 59) == (0, 3))
        #expect(clock.position(ofFrame: 60) == (1, 0))
        #expect(clock.partTarget == 0.5)
        #expect(clock.meetsTheDraftsLowerBound)
    }

    @Test func theFirstPartOfEverySegmentStartsWhereTheSegmentClockStartsIt() {
        for (numerator, denominator) in [(30000, 1001), (25, 1), (60000, 1001), (50, 1), (24000, 1001)] {
            let clock = Self.clock(numerator, denominator, part: 0.33)
            for segment in [0, 1, 7, 1000, 1_000_001] {
                #expect(clock.firstFrame(ofPart: 0, inSegment: segment) == clock.segments.firstFrame(ofSegment: segment), "\(numerator)/\(denominator), segment \(segment)")
                #expect(clock.firstFrame(ofPart: clock.partsPerSegment, inSegment: segment) == clock.segments.firstFrame(ofSegment: segment + 1))
            }
        }
    }

    @Test func everyFrameBelongsToThePartWhoseSpanHoldsIt() {
        let clock = Self.clock(30000, 1001, part: 0.4)
        var starts = 0
        for frame in Int64(0)..<Int64(3000) {
            let (segment, part) = clock.position(ofFrame: frame)
            #expect(clock.firstFrame(ofPart: part, inSegment: segment) <= frame)
            #expect(frame < clock.firstFrame(ofPart: part + 1, inSegment: segment))
            if clock.startsPart(frame: frame) { starts += 1 }
            // A segment's first frame starts a part: every IDR is a part's first frame.
            if clock.segments.startsSegment(frame: frame) { #expect(clock.startsPart(frame: frame)) }
        }
        // 3000 frames at 29.97 are 100.1 s: 50 segments of 5 parts and the start of the 51st.
        #expect(starts == 251)
    }

    @Test func aPartThatDoesNotDivideTheSegmentLeavesAShorterLastPart() {
        let clock = Self.clock(30, part: 0.6)
        #expect(clock.partsPerSegment == 4)
        #expect((0...4).map { clock.firstFrame(ofPart: $0, inSegment: 0) } == [0, 18, 36, 54, 60])
        #expect(clock.partTarget == 0.6)
        #expect(clock.minimumFramesPerPart == 18, "the last part (6 frames) is exempt from the lower bound")
        #expect(clock.meetsTheDraftsLowerBound)
    }

    @Test func theTargetIsTheLongestPartTheGridGivesNeverLess() {
        // 0.5 s at 29.97 is 14.985 frames: parts start on the first frame at or after their time,
        // so they hold 15 frames, and 14 where the grids' drift lands a start just past a frame
        // (segment 16: parts at frames 960, 975, 990, 1004, 1019). The longest is 15 frames,
        // 0.5005 s: longer than P.
        let clock = Self.clock(30000, 1001, part: 0.5)
        #expect((0...4).map { clock.firstFrame(ofPart: $0, inSegment: 16) } == [960, 975, 990, 1004, 1019])
        #expect(clock.maximumFramesPerPart == 15)
        #expect(clock.minimumFramesPerPart == 14)
        #expect(abs(clock.partTarget - 15 * 1001 / 30000.0) < 1e-9)
        #expect(clock.partTarget > 0.5, "a part may be a frame longer than P; PART-TARGET says so")
    }

    @Test(arguments: [
        (5, 0.5, false),   // 2 or 3 frames: 67%
        (10, 0.3, true),   // 3 frames exactly; a segment's seventh and last holds 2 (exempt)
        (25, 0.3, true),   // 7 or 8 frames: 87.5%
        (30, 0.2, true),   // 6 frames each
    ])
    func theDraftsLowerBoundDependsOnTheFrameRate(rate: Int, part: Double, meets: Bool) {
        let clock = Self.clock(rate, part: part)
        #expect(clock.meetsTheDraftsLowerBound == meets, "\(rate) fps, \(part) s: \(clock.minimumFramesPerPart)-\(clock.maximumFramesPerPart) frames")
    }
}
