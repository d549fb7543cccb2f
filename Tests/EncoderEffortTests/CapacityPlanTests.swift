import EncoderEffort
import SidelineCore
import Testing

@Suite struct EffortStepsTests {
    func rung(_ preset: String, profile: String = "high") -> Rung {
        Rung(name: "720p", width: 1280, height: 720, bitrate: .kbps(3000), maxrate: .kbps(3300), bufsize: .kbps(6000), preset: preset, profile: profile)
    }

    @Test func veryfastStepsToSuperfastThenUltrafastWithBFrames() {
        let steps = EffortSteps.steps(for: rung("veryfast"))
        #expect(steps.map(\.name) == ["veryfast", "superfast", "ultrafast-b"])
        #expect(steps.last?.x264Params.contains("bframes=3:b-pyramid=normal") == true)
        #expect(steps.map(\.relativeCost) == steps.map(\.relativeCost).sorted(by: >))
    }

    @Test func aSlowerPresetStepsThroughEveryFasterOne() {
        #expect(EffortSteps.steps(for: rung("medium")).map(\.name) == ["medium", "fast", "faster", "veryfast", "superfast", "ultrafast-b"])
    }

    @Test func ultrafastHasNoCheaperStep() {
        #expect(EffortSteps.steps(for: rung("ultrafast")).map(\.name) == ["ultrafast"])
    }
}

@Suite struct CapacityPlanTests {
    static let ladder = [
        Rung(name: "720p", width: 1280, height: 720, bitrate: .kbps(3000), maxrate: .kbps(3300), bufsize: .kbps(6000), preset: "veryfast", profile: "high"),
        Rung(name: "540p", width: 960, height: 540, bitrate: .kbps(1800), maxrate: .kbps(1980), bufsize: .kbps(3600), preset: "veryfast", profile: "high"),
        Rung(name: "360p", width: 640, height: 360, bitrate: .kbps(800), maxrate: .kbps(880), bufsize: .kbps(1600), preset: "veryfast", profile: "main"),
    ]

    /// The figures `sideline encode --calibrate` measured on the 2-core reference machine.
    static let costs: CostTable = {
        var table = CostTable(machine: "test", decode: 0.1)
        let measured: [[Double]] = [[0.40, 0.24, 0.16], [0.24, 0.14, 0.12], [0.10, 0.06, 0.05]]
        for (rung, row) in zip(ladder, measured) {
            for (step, cost) in zip(EffortSteps.steps(for: rung), row) { table.entries[CostTable.key(rung, step)] = cost }
        }
        return table
    }()

    func streams(_ count: Int, ladder: [Rung] = ladder) -> [CapacityPlan.Stream] {
        (1...count).map { CapacityPlan.Stream(name: "cam\($0)", ladder: ladder) }
    }

    @Test func oneCameraFitsAtTheConfiguredEffort() {
        let plan = CapacityPlan(streams: streams(1), costs: Self.costs, cores: 2)
        #expect(abs(plan.needByStep[0] - 0.84) < 1e-9)
        #expect(plan.fits)
        #expect(plan.warning == nil)
        #expect(plan.startingStep == 0)
    }

    @Test func twoCamerasStartOneStepDownAndSaySo() throws {
        // 1.68 cores at veryfast: more than the 1.6 encoding may plan on.
        let plan = CapacityPlan(streams: streams(2), costs: Self.costs, cores: 2)
        #expect(!plan.fits)
        #expect(plan.fittingStep == 1)
        #expect(plan.startingStep == 1)
        let warning = try #require(plan.warning)
        #expect(warning.hasPrefix("2 streams (cam1, cam2) need about 1.7 cores at veryfast; this machine has 2 (1.6 for encoding)."))
        #expect(warning.contains("They fit at superfast (1.1 cores)"))
        #expect(warning.contains("Or set video.ladder[].preset: superfast to start there for good"))
    }

    @Test func threeCamerasStartAtTheCheapestStep() throws {
        let plan = CapacityPlan(streams: streams(3), costs: Self.costs, cores: 2)
        #expect(plan.fittingStep == 2)
        let warning = try #require(plan.warning)
        #expect(warning.hasPrefix("3 streams (cam1, cam2, cam3) need about 2.5 cores at veryfast"))
        // ultrafast-b is not a preset the config takes, so the message does not offer it as one.
        #expect(warning.contains("They fit at ultrafast-b (1.3 cores): encoders start there and step up when there is room. Carry fewer streams"))
        #expect(CapacityPlan(streams: streams(3), costs: Self.costs, cores: 4).fits)
    }

    /// 0 is x264's own choice.
    @Test(arguments: [(2, 1, 0), (2, 2, 1), (2, 3, 1), (8, 3, 0), (8, 9, 1), (2, 9, 1)])
    func threadsShareTheCoresAmongEveryRung(cores: Int, rungs: Int, threads: Int) {
        let plan = CapacityPlan(streams: [.init(name: "cam", ladder: Array(repeating: Self.ladder[0], count: rungs))], costs: Self.costs, cores: cores)
        #expect(plan.threadsPerRung == threads)
    }

    @Test func tooManyCamerasAreToldToLeaveTheTopRungOut() throws {
        let plan = CapacityPlan(streams: streams(5), costs: Self.costs, cores: 2)
        #expect(plan.fittingStep == nil)
        #expect(plan.rungsToLeaveOut == 1)
        #expect(plan.startingStep == 2)
        let warning = try #require(plan.warning)
        #expect(warning.contains("Even at ultrafast-b they need 2.2 cores"))
        #expect(warning.contains("Serving them without the best 1 rung of each ladder (\(Self.ladder[0].name))"))
        #expect(plan.shedRungs(of: plan.streams[0]) == [Self.ladder[0].name])
    }

    @Test func farTooManyAreToldToCarryFewer() throws {
        let plan = CapacityPlan(streams: streams(20), costs: Self.costs, cores: 2)
        #expect(plan.rungsToLeaveOut == nil)
        #expect(try #require(plan.warning).contains("carry fewer streams"))
        #expect(plan.shedRungs(of: plan.streams[0]) == Self.ladder.dropLast().map(\.name), "all but the cheapest rung")
    }

    @Test func aPlanThatFitsShedsNothing() {
        let plan = CapacityPlan(streams: streams(3), costs: Self.costs, cores: 2)
        #expect(plan.fittingStep != nil)
        #expect(plan.shedRungs(of: plan.streams[0]).isEmpty)
    }

    @Test func theTableSaysWhatItLacksAndWhatItKnows() {
        var table = CostTable(machine: "test")
        #expect(table.missing(Self.ladder + Self.ladder).map(\.name) == ["720p", "540p", "360p"])
        table.merge(Self.costs)
        #expect(table.missing(Self.ladder).isEmpty)
        #expect(table.relativeCosts(Self.ladder[0]).map { ($0 * 100).rounded() } == [100, 60, 40])
        // A rung of another size is not known: estimates from the steps.
        var other = Self.ladder[0]
        other.width = 1920
        other.height = 1080
        #expect(table.relativeCosts(other) == EffortSteps.steps(for: other).map(\.relativeCost))
    }
}
