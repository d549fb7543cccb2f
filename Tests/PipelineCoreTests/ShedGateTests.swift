import PipelineCore
import Testing

/// Which rungs the input thread leaves out of each frame and audio packet while rungs are shed
/// and taken back: a shed rung at once, a rung taken back until the next segment starts (its
/// new run begins on the IDR every rung gets there).
@Suite struct ShedGateTests {
    @Test func aShedRungIsLeftOutOfVideoAndAudioAtOnce() {
        let control = ShedControl()
        let gate = ShedGate(control: control)
        #expect(gate.leftOut(startsSegment: false).isEmpty)
        control.set("720p", shed: true)
        #expect(gate.leftOut(startsSegment: false) == ["720p"])
        #expect(gate.leftOut(startsSegment: true) == ["720p"], "a segment start does not bring a shed rung back")
        #expect(gate.leftOutOfAudio() == ["720p"])
    }

    @Test func aRungTakenBackWaitsForTheNextSegmentStart() {
        let control = ShedControl(shed: ["720p", "540p"])
        let gate = ShedGate(control: control)
        #expect(gate.leftOut(startsSegment: false) == ["720p", "540p"])
        control.set("720p", shed: false)
        // Mid-segment: 720p would start on a frame that is no keyframe of its encoder's GOP.
        #expect(gate.leftOut(startsSegment: false) == ["720p", "540p"])
        #expect(gate.leftOutOfAudio() == ["720p", "540p"])
        #expect(gate.leftOut(startsSegment: true) == ["540p"])
        #expect(gate.leftOutOfAudio() == ["540p"])
        #expect(gate.leftOut(startsSegment: false) == ["540p"])
    }

    @Test func aRungShedAgainBeforeItResumedStaysOut() {
        let control = ShedControl(shed: ["720p"])
        let gate = ShedGate(control: control)
        _ = gate.leftOut(startsSegment: false)
        control.set("720p", shed: false)
        _ = gate.leftOut(startsSegment: false)
        control.set("720p", shed: true)
        #expect(gate.leftOut(startsSegment: true) == ["720p"])
        control.set("720p", shed: false)
        #expect(gate.leftOut(startsSegment: false) == ["720p"])
        #expect(gate.leftOut(startsSegment: true).isEmpty)
    }
}
