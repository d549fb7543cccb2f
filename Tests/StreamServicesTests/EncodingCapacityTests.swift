import EncoderEffort
import Foundation
import Logging
import PipelineCore
import SidelineConfig
import SidelineCore
import StreamServices
import Testing

/// `EncodingCapacity`'s choices over plain values (the calibration input, where the table is
/// kept, the effort each stream starts at, the report), and the kept table over a temporary
/// directory. No FFmpeg: nothing here measures.
@Suite struct EncodingCapacityTests {
    static let ladder = SidelineConfiguration.defaultStream.video.ladder

    static func stream(_ name: String, input: String, pushed: Bool = false) -> StreamSettings {
        var stream = StreamSettings(name: name, input: input, loop: true, inputTimeout: 10, video: SidelineConfiguration.defaultStream.video)
        if pushed { stream.ingestToken = "secret" }
        return stream
    }

    /// A table with a figure for every step of every rung of the default ladder: 0.1 CPU s per
    /// media s at the configured step, halving at each step down.
    static func fullTable(machine: String = "test-cpu x2") -> CostTable {
        var table = CostTable(machine: machine, decode: 0.05)
        for rung in ladder {
            for (index, step) in EffortSteps.steps(for: rung).enumerated() {
                table.entries[CostTable.key(rung, step)] = 0.1 / Double(1 << index)
            }
        }
        return table
    }

    // MARK: The calibration input

    @Test(arguments: [
        // The sample wins when it is there: the same footage on every machine.
        (["sample.mp4", "/srv/a.mp4"], [("a", "/srv/a.mp4", false)], "sample.mp4"),
        // Else the first file input that is there.
        (["/srv/b.mp4"], [("a", "/srv/a.mp4", false), ("b", "/srv/b.mp4", false)], "/srv/b.mp4"),
        (["/srv/a.mp4", "/srv/b.mp4"], [("a", "/srv/a.mp4", false), ("b", "/srv/b.mp4", false)], "/srv/a.mp4"),
        // A camera, a network input or a pushed stream's is never calibrated with.
        (["/dev/video0"], [("cam", "/dev/video0", false)], "testsrc"),
        (["rtsp://cam/1"], [("net", "rtsp://cam/1", false)], "testsrc"),
        (["/srv/p.mp4"], [("p", "/srv/p.mp4", true)], "testsrc"),
        // Nothing there: the built-in test pattern.
        ([], [("a", "/srv/a.mp4", false)], "testsrc"),
    ] as [([String], [(String, String, Bool)], String)])
    func calibrationInput(present: [String], streams: [(String, String, Bool)], chosen: String) {
        let settings = streams.map { Self.stream($0.0, input: $0.1, pushed: $0.2) }
        let input = EncodingCapacity.calibrationInput(for: settings, sample: "sample.mp4") { present.contains($0) }
        #expect(input == (chosen == "testsrc" ? InputKind.testPatternName : chosen))
    }

    // MARK: Where the table is kept

    @Test(arguments: [
        (["SIDELINE_COST_TABLE": "/etc/costs.json", "XDG_CACHE_HOME": "/x", "HOME": "/h"], "/etc/costs.json"),
        (["SIDELINE_COST_TABLE": "", "XDG_CACHE_HOME": "/x", "HOME": "/h"], "/x/sideline/encoding-costs.json"),
        (["XDG_CACHE_HOME": "", "HOME": "/h"], "/h/.cache/sideline/encoding-costs.json"),
        ([:], "/tmp-dir/sideline/encoding-costs.json"),
    ] as [([String: String], String)])
    func tablePath(environment: [String: String], path: String) {
        #expect(EncodingCapacity.tablePath(environment: environment, temporaryDirectory: "/tmp-dir") == path)
    }

    // MARK: The kept table, on disk

    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("encoding-capacity-\(UUID().uuidString)/deeper/costs.json").path
    }

    @Test func aKeptTableIsReadBackOnTheSameMachine() {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        EncodingCapacity.keep(Self.fullTable(), at: path, logger: Logger(label: "test"))
        #expect(EncodingCapacity.keptTable(machine: "test-cpu x2", at: path) == Self.fullTable())
        #expect(EncodingCapacity.keptTable(machine: "test-cpu x2", at: path).missing(Self.ladder).isEmpty)
    }

    @Test func aTableOfAnotherMachineIsNotUsed() {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        EncodingCapacity.keep(Self.fullTable(machine: "other-cpu x64"), at: path, logger: Logger(label: "test"))
        let table = EncodingCapacity.keptTable(machine: "test-cpu x2", at: path)
        #expect(table == CostTable(machine: "test-cpu x2"))
        #expect(table.missing(Self.ladder).count == Self.ladder.count, "every rung is measured again")
    }

    @Test func noTableOrAnUnreadableOneIsAnEmptyTable() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect(EncodingCapacity.keptTable(machine: "m", at: path) == CostTable(machine: "m"))
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("{\"machine\": \"m\", \"entr".utf8).write(to: URL(fileURLWithPath: path))
        #expect(EncodingCapacity.keptTable(machine: "m", at: path) == CostTable(machine: "m"))
    }

    /// A table that cannot be kept (its directory is a file) is logged and measured again next time; nothing throws.
    @Test func aTableThatCannotBeKeptIsNotFatal() throws {
        let blocker = temporaryPath()
        let directory = (blocker as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        try FileManager.default.createDirectory(atPath: (directory as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: directory))
        EncodingCapacity.keep(Self.fullTable(), at: blocker, logger: Logger(label: "test"))
        #expect(EncodingCapacity.keptTable(machine: "test-cpu x2", at: blocker) == CostTable(machine: "test-cpu x2"))
    }

    // MARK: Effort and the report

    @Test func effortStartsAsConfiguredWithoutAPlan() {
        let effort = EncodingCapacity.effort(for: Self.stream("main", input: "a.mp4"), plan: nil, table: Self.fullTable())
        #expect(effort.startingStep == 0 && effort.threadsPerRung == 0 && effort.relativeCosts.isEmpty)
    }

    @Test func effortTakesThePlansStepAndTheMeasuredRelativeCosts() {
        let stream = Self.stream("main", input: "a.mp4")
        let table = Self.fullTable()
        let plan = CapacityPlan(streams: [.init(name: "main", ladder: Self.ladder)], costs: table, cores: 2)
        let effort = EncodingCapacity.effort(for: stream, plan: plan, table: table)
        #expect(effort.startingStep == plan.startingStep && effort.threadsPerRung == plan.threadsPerRung)
        for rung in Self.ladder {
            #expect(effort.relativeCosts[rung.name] == EffortSteps.steps(for: rung).indices.map { 1 / Double(1 << $0) })
        }
    }

    @Test func theReportListsEachRungOnceAndWhatTheStreamsNeed() {
        let streams = [Self.stream("a", input: "a.mp4"), Self.stream("b", input: "b.mp4"), Self.stream("p", input: "", pushed: true)]
        let report = EncodingCapacity.report(Self.fullTable(), for: streams, input: "sample.mp4", cores: 4, keptIn: "/k/costs.json")
        let lines = report.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0].hasPrefix("Encoding costs on test-cpu x2, measured with sample.mp4 (2 s of media"))
        #expect(lines[1] == "Kept in /k/costs.json; serve reads it at start.")
        // Three streams of the same ladder: each rung's steps once.
        let rows = lines.filter { line in Self.ladder.contains { line.hasPrefix($0.name + " ") } }
        #expect(rows.count == Self.ladder.map { EffortSteps.steps(for: $0).count }.reduce(0, +))
        #expect(rows.filter { $0.hasSuffix("1.00x") }.count == Self.ladder.count, "each rung's configured step against itself")
        #expect(report.contains("decode") && report.contains("0.050"))
        // The pushed stream is encoded elsewhere: two streams need the cores.
        let plan = CapacityPlan(streams: [.init(name: "a", ladder: Self.ladder), .init(name: "b", ladder: Self.ladder)], costs: Self.fullTable(), cores: 4)
        #expect(lines.last == plan.warning ?? "2 streams need about \(String(format: "%.1f", plan.needByStep[0])) cores at their configured effort; this machine has 4 (3.2 for encoding): they fit.")
    }
}
