import Foundation

/// The repository this file is in, read for the house rules.
enum Repository {
    /// The checkout's root: three levels above Tests/HouseRulesTests/Repository.swift.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }

    static func text(_ path: String) throws -> String {
        do {
            return try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        } catch {
            throw Unreadable(description: "cannot read \(path) under \(root.path): \(error)")
        }
    }

    static func manifest() throws -> Manifest {
        try ManifestParser.parse(text("Package.swift"))
    }

    /// The contents of every file under `directory` (relative to the root) whose name ends in
    /// `suffix` ("" for every file), by path.
    static func files(under directory: String, endingIn suffix: String) throws -> [String: String] {
        let base = root.appendingPathComponent(directory)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw Unreadable(description: "cannot list \(base.path)")
        }
        var contents: [String: String] = [:]
        for case let url as URL in walker where url.lastPathComponent.hasSuffix(suffix) {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            contents[url.path] = try String(contentsOf: url, encoding: .utf8)
        }
        return contents
    }

    /// What each Swift target of `manifest` imports, all its files together.
    static func imports(of manifest: Manifest) throws -> [String: Set<String>] {
        var imports: [String: Set<String>] = [:]
        for target in manifest.targets where target.kind != .systemLibrary {
            let sources = try files(under: target.directory, endingIn: ".swift")
            guard !sources.isEmpty else { throw Unreadable(description: "\(target.name) has no .swift file under \(target.directory)") }
            imports[target.name] = sources.values.reduce(into: []) { $0.formUnion(SourceImports.modules(in: $1)) }
        }
        return imports
    }

    /// `work` on a thread of its own: reading and lexing every source (about a second in a
    /// debug build) or waiting for a process must not hold one of Swift concurrency's threads
    /// (the unit phase has one).
    static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// What `git ls-files` lists.
    static func trackedFiles() async throws -> [String] {
        let output = try await offThePool {
            let git = Process()
            git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            git.arguments = ["git", "-C", root.path, "ls-files", "-z"]
            let pipe = Pipe()
            git.standardOutput = pipe
            try git.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            git.waitUntilExit()
            guard git.terminationStatus == 0 else {
                throw Unreadable(description: "`git ls-files` in \(root.path) exited with \(git.terminationStatus): the tracked-files rule needs a git checkout")
            }
            return String(decoding: data, as: UTF8.self)
        }
        return output.split(separator: "\0").map(String.init)
    }
}
