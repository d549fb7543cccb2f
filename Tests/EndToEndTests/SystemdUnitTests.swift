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
}
