import OriginPolicy
import Testing

/// Which variant a clip is cut from: the same rule for the route and `sideline export`.
@Suite struct ClipVariantChoiceTests {
    let ladder = ["720p", "540p", "360p"]

    @Test func withNoneAskedTheBestRungThatRecordedSomething() {
        #expect(ClipPlan.variant(asked: nil, variants: ladder, recorded: ["360p", "540p"]) == .variant("540p"))
        #expect(ClipPlan.variant(asked: "", variants: ladder, recorded: ["720p"]) == .variant("720p"), "an empty `variant=` asks for none")
        #expect(ClipPlan.variant(asked: nil, variants: ladder, recorded: []) == .nothingRecorded(asked: nil))
    }

    @Test func anAskedVariantMustBeTheStreamsAndHaveRecorded() {
        #expect(ClipPlan.variant(asked: "360p", variants: ladder, recorded: ["360p", "720p"]) == .variant("360p"))
        #expect(ClipPlan.variant(asked: "4k", variants: ladder, recorded: ["720p"]) == .unknown(asked: "4k", has: ladder))
        #expect(ClipPlan.variant(asked: "540p", variants: ladder, recorded: ["720p"]) == .nothingRecorded(asked: "540p"))
    }
}
