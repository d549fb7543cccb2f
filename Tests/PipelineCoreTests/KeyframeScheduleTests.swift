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
        #expect((0...130).filter { schedule.forcesKeyframe(frame: Int64($0)) } == expected)
    }

    /// At 29.97 fps parts are 5 or 6 frames: every part's first frame, as the part clock puts it,
    /// and nothing in between, so every part the muxer cuts starts with an IDR.
    @Test func everyPartStartAtAFractionalRate() throws {
        let segments = SegmentClock(frameRate: FrameRate(numerator: 30000, denominator: 1001), segmentDuration: 2)
        let parts = try #require(PartClock(segments: segments, partDuration: 0.2))
        let schedule = KeyframeSchedule(segments: segments, parts: parts, everyPart: true)
        let idrs = (0..<600).filter { schedule.forcesKeyframe(frame: Int64($0)) }
        let starts = (0..<10).flatMap { segment in (0..<parts.partsPerSegment).map { Int(parts.firstFrame(ofPart: $0, inSegment: segment)) } }
        #expect(idrs == starts.filter { $0 < 600 })
        #expect(Set(zip(idrs, idrs.dropFirst()).map { $1 - $0 }).isSubset(of: [5, 6]))
    }
}
