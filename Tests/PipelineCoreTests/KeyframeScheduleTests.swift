import PipelineCore
import Testing

/// Where the encoder forces IDRs: segment starts always, part starts only on a pair that asks
/// for them (`redundancy.keyframe_every_part`), never where there are no parts.
@Suite struct KeyframeScheduleTests {
    static let segments = SegmentClock(frameRate: FrameRate(30), segmentDuration: 2)
    static let parts = PartClock(segments: segments, partDuration: 0.2)

    /// Frames 0-130 at 30 fps, 2 s segments, 0.2 s parts (6 frames each): the IDRs of each schedule.
    @Test(arguments: [
        (true, true, [0, 6, 12, 18, 24, 30, 36, 42, 48, 54, 60, 66, 72, 78, 84, 90, 96, 102, 108, 114, 120, 126]),
        (true, false, [0, 60, 120]),
        (false, true, [0, 60, 120]),
        (false, false, [0, 60, 120]),
    ])
    func idrFrames(withParts: Bool, everyPart: Bool, expected: [Int]) {
        let schedule = KeyframeSchedule(segments: Self.segments, parts: withParts ? Self.parts : nil, everyPart: everyPart)
        let idrs = (0...130).filter { (frame: Int) -> Bool in schedule.forcesKeyframe(frame: Int64(frame), after: frame == 0 ? nil : Int64(frame - 1)) }
        #expect(idrs == expected)
    }

    /// At 29.97 fps parts are 5 or 6 frames: every part's first frame, as the part clock puts it,
    /// and nothing in between, so every part the muxer cuts starts with an IDR.
    @Test func everyPartStartAtAFractionalRate() throws {
        let segments = SegmentClock(frameRate: FrameRate(numerator: 30000, denominator: 1001), segmentDuration: 2)
        let parts = try #require(PartClock(segments: segments, partDuration: 0.2))
        let schedule = KeyframeSchedule(segments: segments, parts: parts, everyPart: true)
        let idrs = (0..<600).filter { (frame: Int) -> Bool in schedule.forcesKeyframe(frame: Int64(frame), after: frame == 0 ? nil : Int64(frame - 1)) }
        // 2 s at 29.97 fps is 59.94 frames: segments start at 0, 60, 120, ...; 0.2 s parts of
        // 5.994 frames start 6 frames apart but for one 5-frame part per segment.
        #expect(idrs.prefix(12) == [0, 6, 12, 18, 24, 30, 36, 42, 48, 54, 60, 66])
        #expect(Set(zip(idrs, idrs.dropFirst()).map { $1 - $0 }).isSubset(of: [5, 6]))
        #expect(idrs.count == 100, "ten parts in each of ten segments: \(idrs.count)")
    }

    /// A variant that falls behind has frames left out: the first frame it encodes in a part
    /// is the IDR, wherever in the part it falls, and a left-out frame inside a part changes
    /// nothing. Frames 0, 1, then 8 (part 1's 6 and 7 left out), 9, then 13 (12 left out).
    @Test func theFirstFrameEncodedInAPartIsItsIDR() throws {
        let schedule = KeyframeSchedule(segments: Self.segments, parts: Self.parts, everyPart: true)
        let encoded: [Int64] = [0, 1, 8, 9, 13, 14, 17, 18, 60]
        let previous: [Int64?] = [nil] + encoded.dropLast().map { Optional($0) }
        let idrs = zip(encoded, previous).filter { (frame: Int64, before: Int64?) -> Bool in schedule.forcesKeyframe(frame: frame, after: before) }.map(\.0)
        #expect(idrs == [0, 8, 13, 18, 60])
        // One box on its own: still only the segment's first frame, left-out frames or not.
        let single = KeyframeSchedule(segments: Self.segments, parts: Self.parts, everyPart: false)
        let singleIDRs = zip(encoded, previous).filter { (frame: Int64, before: Int64?) -> Bool in single.forcesKeyframe(frame: frame, after: before) }.map(\.0)
        #expect(singleIDRs == [0, 60])
    }
}
