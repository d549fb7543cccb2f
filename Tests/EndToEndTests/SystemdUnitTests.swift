import Foundation
import Testing
import TestSupport

/// The shipped systemd unit is valid and restarts Sideline after a crash.
@Suite struct SystemdUnitTests {
    static let unitPath = Repository.root.appendingPathComponent("Config/systemd/sideline.service").path

    @Test func unitRestartsOnCrashAndStopsWithSIGTERM() throws {
        let text = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
        let lines = Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        for expected in ["Restart=always", "RestartSec=1", "KillSignal=SIGTERM", "StartLimitIntervalSec=0"] {
            #expect(lines.contains(expected), "\(expected)")
        }
        #expect(lines.contains { $0.hasPrefix("ExecStart=") && $0.contains("sideline serve --config") })
        // `systemctl reload` (Docs/operations.md, "TLS") sends SIGHUP to the server itself.
        #expect(lines.contains("ExecReload=/bin/kill -HUP $MAINPID"))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "systemd-analyze is not installed"))
    func systemdAcceptsTheUnit() async throws {
        // Verify a copy whose ExecStart is the binary the tests built (the unit names the
        // install location, /opt/sideline, which need not exist here).
        let directory = try makeTemporaryDirectory("systemd")
        let text = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
            .replacingOccurrences(of: "/opt/sideline/.build/release/sideline", with: Repository.sidelineExecutable)
        let copy = directory + "/sideline.service"
        try text.write(toFile: copy, atomically: true, encoding: .utf8)
        let result = try await Command.run("/usr/bin/systemd-analyze", ["verify", copy], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains(copy), "no warnings about the unit: \(result.stderr)")
    }
    /// `systemctl reload` while the server is still starting (calibrating its encoders with a
    /// cost table it has not measured yet, encoding its stand-ins): the SIGHUP is handled once
    /// it runs; before issue 26 it killed the process.
    @Test func aReloadDuringStartUpDoesNotKillTheServer() async throws {
        let directory = try makeTemporaryDirectory("reload-at-start")
        try TestLadders.twoRungs.write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
        let server = try SidelineProcess(arguments: ["--config", directory + "/config.yaml", "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data",
                                                     "--log-level", "debug"],
                                         environment: ["SIDELINE_COST_TABLE": directory + "/costs.json"])
        defer { _ = Task { try? await server.stop() } }
        // The handlers are installed first; start-up (calibration, the stand-ins encoded for
        // every rung) takes most of a second after that in a debug build.
        let installed = ContinuousClock.now + .seconds(30)
        while !server.log.contains("signal handlers installed"), ContinuousClock.now < installed, server.process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        #expect(!server.log.contains("Open: "), "still starting when the signal is sent")
        kill(server.process.processIdentifier, SIGHUP)
        _ = try await server.waitForURL(timeout: 60)
        #expect(server.process.isRunning)
        let deadline = ContinuousClock.now + .seconds(10)
        while !server.log.contains("SIGHUP: no server.tls to reload"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(server.log.contains("SIGHUP: no server.tls to reload"), "\(server.log.suffix(500))")
    }
}
