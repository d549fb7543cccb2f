import PipelineCore
import SidelineConfig
import StreamServices
import Testing

/// What `ServePlan` tells the encoders about keyframes: every part of a redundant pair's
/// streams starts with an IDR (so a move between the boxes mid-segment decodes cleanly), and a
/// box on its own keeps one IDR per segment.
@Suite struct ServePlanKeyframeTests {
    static func plan(_ yaml: String) throws -> ServePlan {
        let configuration = try SidelineConfiguration.parse(yaml: "stream: {name: main, input: testpattern}\n" + yaml)
        return ServePlan(configuration: configuration, stream: configuration.streams[0], realtime: true)
    }

    @Test(arguments: [
        ("", false),
        ("redundancy: {peer: 'http://10.0.0.2:8080', role: standby}\n", true),
        ("redundancy: {peer: 'http://10.0.0.2:8080', role: primary, keyframe_every_part: false}\n", false),
    ])
    func keyframesFollowThePair(yaml: String, everyPart: Bool) throws {
        let keyframes = try Self.plan(yaml).pipelineConfiguration.keyframes
        #expect(keyframes.everyPart == everyPart)
        #expect(keyframes.parts != nil, "parts are on by default")
        // 0.2 s parts at 30 fps: frame 6 starts the second part.
        #expect(keyframes.forcesKeyframe(frame: 6, after: 5) == everyPart)
        #expect(keyframes.forcesKeyframe(frame: 60, after: 59))
    }

    /// Without parts a pair's keyframes are the segments' only.
    @Test func noPartsNoExtraKeyframes() throws {
        let keyframes = try Self.plan("part_duration: 0\nredundancy: {peer: 'http://10.0.0.2:8080', role: standby}\n").pipelineConfiguration.keyframes
        #expect(keyframes.parts == nil && !keyframes.forcesKeyframe(frame: 6, after: 5) && keyframes.forcesKeyframe(frame: 60, after: 59))
    }
}
