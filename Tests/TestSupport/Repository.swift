import Foundation

/// Paths of the repository and of what `swift build` made, for tests that run real programs.
public enum Repository {
    /// The repository root, from this file's place in it.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static var sample: String { root.appendingPathComponent("Samples/sample.mp4").path }

    /// A config with one small ultrafast rung (`360p`), for tests of behaviour rather than quality.
    public static var lightLadderConfig: String { root.appendingPathComponent("Tests/Fixtures/light-ladder.yaml").path }

    /// The `sideline` executable built next to the test bundle (`swift build --build-tests`
    /// builds it, since the end-to-end tests depend on it).
    public static var sidelineExecutable: String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        var directory = testBinary.deletingLastPathComponent()
        // The bundle may be a directory (.xctest on macOS) or a file (Linux).
        while directory.path.count > 1 {
            let candidate = directory.appendingPathComponent("sideline").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
            if directory.lastPathComponent == ".build" { break }
        }
        return root.appendingPathComponent(".build/debug/sideline").path
    }
}

/// A fresh directory under the system's temporary directory.
public func makeTemporaryDirectory(_ label: String = "test") throws -> String {
    let path = NSTemporaryDirectory() + "sideline-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
