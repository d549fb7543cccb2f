import EncoderEffort
import SidelineCore
import Testing

/// The profile each effort step writes and the one CODECS declares, row by row (issue 44: the
/// master said High while a stepped-down rung carried Main, and Main while a rung that started
/// low later carried High).
@Suite struct CoveringProfileTests {
    func rung(preset: String, profile: String) -> Rung {
        Rung(name: "720p", width: 1280, height: 720, bitrate: BitRate(bitsPerSecond: 3_000_000), maxrate: BitRate(bitsPerSecond: 3_300_000),
             bufsize: BitRate(bitsPerSecond: 6_000_000), preset: preset, profile: profile)
    }

    @Test(arguments: [
        // preset, configured profile, the profile of each step in order, the covering one.
        ("veryfast", "high", [100, 100, 77], 100),
        ("veryfast", "main", [77, 77, 77], 77),
        ("veryfast", "baseline", [66, 66, 66], 66),
        ("superfast", "high", [100, 77], 100),
        ("ultrafast", "high", [66], 66),
        ("medium", "high", [100, 100, 100, 100, 100, 77], 100),
    ])
    func everyStepIsCovered(preset: String, profile: String, written: [Int], covering: Int) {
        let rung = rung(preset: preset, profile: profile)
        let steps = EffortSteps.steps(for: rung)
        #expect(steps.map { Int(H264Profile.written(by: $0, configured: profile).idc) } == written)
        let declared = H264Profile.covering(rung)
        #expect(Int(declared.idc) == covering)
        for step in steps { #expect(H264Profile.written(by: step, configured: profile) <= declared, "step \(step.name) is not covered") }
    }

    /// The constraint byte x264 writes with each profile: `avc1.42c0..`, `avc1.4d40..`, `avc1.64 00..`.
    @Test func constraintFlagsAreX264s() {
        #expect(H264Profile.constrainedBaseline.constraintFlags == 0xC0)
        #expect(H264Profile.main.constraintFlags == 0x40)
        #expect(H264Profile.high.constraintFlags == 0x00)
    }

    /// A baseline rung never steps to ultrafast-b: its parameters, applied after the profile,
    /// would put B-frames and CABAC back into a baseline rung.
    @Test func baselineRungStepsToPlainUltrafast() {
        let steps = EffortSteps.steps(for: rung(preset: "veryfast", profile: "baseline"))
        #expect(steps.last?.name == "ultrafast")
        #expect(steps.last?.x264Params == "")
        #expect(EffortSteps.steps(for: rung(preset: "veryfast", profile: "high")).last?.name == "ultrafast-b")
    }
}
