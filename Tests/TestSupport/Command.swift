import Foundation

/// Runs a program to completion and keeps what it printed.
public struct CommandResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

public enum Command {
    /// Runs `executable` with `arguments`; kills it after `timeout` seconds. Output goes through
    /// files, so a chatty program can never block on a full pipe.
    public static func run(_ executable: String, _ arguments: [String], timeout: Double = 120, environment: [String: String]? = nil) async throws -> CommandResult {
        let directory = try makeTemporaryDirectory("cmd")
        let outPath = directory + "/stdout", errPath = directory + "/stderr"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : try which(executable))
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                // SIGKILL: a child started from one of the test runner's threads inherits
                // their blocked signals, SIGTERM among them.
                kill(process.processIdentifier, SIGKILL)
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.waitUntilExit()
        let result = CommandResult(
            status: process.terminationStatus,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        )
        try? FileManager.default.removeItem(atPath: directory)
        return result
    }

    public static func which(_ name: String) throws -> String {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw CommandNotFound(name: name)
    }

    public struct CommandNotFound: Error, CustomStringConvertible {
        public let name: String
        public var description: String { "\(name) is not installed; run scripts/ensure-deps.sh" }
    }
}
