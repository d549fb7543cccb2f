import Foundation
import Testing
import TestSupport

/// What the box can carry, end to end: `sideline encode --calibrate` measures and keeps the cost
/// table; `serve` reads it, says in one line when the streams do not fit, starts every encoder at
/// the effort that fits, shows it on /api/streams, /metrics and the status line, and steps up
/// when the machine turns out to have room. The kept table is a file of the test's own
/// (SIDELINE_COST_TABLE), so the machine's real one is not touched.
@Suite struct EncoderEffortEndToEndTests {
    /// Two small rungs at veryfast: three effort steps each, cheap enough for any machine.
    static let config = """
        video:
          ladder:
            - {name: 360p, width: 640, height: 360, bitrate: 600k, preset: veryfast, profile: main}
            - {name: 180p, width: 320, height: 180, bitrate: 200k, preset: veryfast, profile: main}
        """
    static let steps = ["veryfast", "superfast", "ultrafast-b"]
    static let keys = ["640x360@600k/main", "320x180@200k/main"]

    @Test func calibrationIsKeptAndAStreamThatDoesNotFitStartsCheaperThenStepsUp() async throws {
        let directory = try makeTemporaryDirectory("effort")
        let configPath = directory + "/sideline.yaml"
        try Self.config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let table = directory + "/costs.json"

        // 1. Calibration: every rung at every step, kept, with the verdict.
        let calibrated = try await Command.run(Repository.sidelineExecutable, ["encode", "--calibrate", "--config", configPath, "--data-dir", directory + "/data"],
                                               timeout: 120, environment: ["SIDELINE_COST_TABLE": table])
        #expect(calibrated.status == 0, "\(calibrated.stderr)")
        for step in Self.steps {
            #expect(calibrated.stdout.contains("360p    640x360    \(step)"), "\(calibrated.stdout)")
        }
        #expect(calibrated.stdout.contains("1 stream needs about") && calibrated.stdout.contains("they fit."), "\(calibrated.stdout)")
        let kept = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: table))) as? [String: Any])
        let machine = try #require(kept["machine"] as? String)
        let entries = try #require(kept["entries"] as? [String: Double])
        #expect(entries.count == 6 && entries.values.allSatisfy { $0 > 0 }, "\(entries)")

        // 2. A table (for this machine) that says the ladder needs the whole box at veryfast:
        // serve warns once, and starts at the step that fits.
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        var heavy: [String: Double] = [:]
        for key in Self.keys {
            for (step, share) in zip(Self.steps, [0.5, 0.5, 0.15]) { heavy["\(key)/\(step)"] = cores * share }
        }
        let crafted = try JSONSerialization.data(withJSONObject: ["machine": machine, "decode": 0, "entries": heavy])
        try crafted.write(to: URL(fileURLWithPath: table))
        let server = try SidelineProcess(arguments: ["--config", configPath, "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data"],
                                         environment: ["SIDELINE_COST_TABLE": table])
        let master = try await server.waitForURL()
        #expect(server.log.contains("1 stream (main) needs about \(Self.oneDecimal(cores)) cores at veryfast; this machine has \(Int(cores))"), "\(server.log)")
        #expect(server.log.contains("They fit at ultrafast-b"), "\(server.log)")
        let streamsURL = URL(string: "/api/streams", relativeTo: master)!.absoluteURL
        let metricsURL = URL(string: "/metrics", relativeTo: master)!.absoluteURL
        _ = try await waitForOK(master, timeout: 60)
        let early = try await Self.variants(streamsURL)
        #expect(early.map { $0["effort"] as? String } == ["ultrafast-b", "ultrafast-b"], "\(early)")
        #expect(early.map { $0["effortStep"] as? Int } == [2, 2])
        let gauge = ["stream=\"main\"", "variant=\"360p\""]
        #expect(try await Self.metric("sideline_encoder_effort", gauge, at: metricsURL) == 2)

        // 3. The machine has room: five calm segments later each rung steps up, one step at a time.
        let deadline = Date().addingTimeInterval(60)
        var up = 0.0
        while Date() < deadline {
            up = try await Self.metric("sideline_effort_steps_total", ["stream=\"main\"", "variant=\"360p\"", "direction=\"up\""], at: metricsURL) ?? 0
            if up >= 1 { break }
            try await Task.sleep(for: .seconds(1))
        }
        #expect(up >= 1, "the 360p rung stepped up once the box proved to have room\n\(server.log)")
        #expect((try await Self.metric("sideline_encoder_effort", gauge, at: metricsURL) ?? 2) < 2)
        #expect(server.log.contains("variant encoder effort changed at a segment boundary"), "each change is logged")
        #expect(server.log.contains("effort=360p:") || server.log.contains("effort=180p:"), "the status line shows the rungs below their preset\n\(server.log)")
        #expect(try await server.stop() == 0)
        #expect(!server.log.contains("slow-variant-drops"), "no frame was dropped\n\(server.log)")

        // 4. A table measured on another machine is not used: serve measures again and keeps its own.
        try JSONSerialization.data(withJSONObject: ["machine": "another CPU x64", "decode": 0, "entries": heavy]).write(to: URL(fileURLWithPath: table))
        let again = try SidelineProcess(arguments: ["--config", configPath, "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data2"],
                                        environment: ["SIDELINE_COST_TABLE": table])
        _ = try await again.waitForURL()
        #expect(!again.log.contains("cores at veryfast"), "\(again.log)")
        #expect(try await again.stop() == 0)
        let remeasured = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: table))) as? [String: Any])
        #expect(remeasured["machine"] as? String == machine)
    }

    static func oneDecimal(_ value: Double) -> String { String(format: "%.1f", value) }

    static func variants(_ url: URL) async throws -> [[String: Any]] {
        let listing = try #require(try JSONSerialization.jsonObject(with: try await http(url).body) as? [String: Any])
        let stream = try #require((listing["streams"] as? [[String: Any]])?.first)
        return try #require(stream["variants"] as? [[String: Any]])
    }

    /// The value of the series `name` whose labels include every one of `labels` (in whatever order the exporter writes them).
    static func metric(_ name: String, _ labels: [String], at url: URL) async throws -> Double? {
        let text = String(decoding: try await http(url).body, as: UTF8.self)
        return text.split(separator: "\n").first { line in
            line.hasPrefix(name + "{") && labels.allSatisfy { line.contains($0) }
        }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }
}
