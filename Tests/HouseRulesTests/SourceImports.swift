/// The modules a Swift source file imports.
enum SourceImports {
    /// The modules the toolchain itself provides: no target declares them.
    static let toolchainModules: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking", "FoundationXML",
        "Dispatch", "Glibc", "Musl", "Darwin", "Android", "WinSDK", "CoreFoundation",
        "Swift", "_Concurrency", "Synchronization", "RegexBuilder", "Observation", "Distributed", "Cxx", "CxxStdlib",
        "Testing", "XCTest",
    ]

    /// The top module of each `import` in `source` (`import struct NIOCore.ByteBuffer` counts
    /// as NIOCore), whatever its attributes (`@testable`, `@preconcurrency`) or access level.
    /// Imports inside comments and multi-line strings do not count; those under `#if
    /// canImport(...)` do.
    static func modules(in source: String) -> Set<String> {
        let code = String(SwiftText.withoutComments(source))
        var modules: Set<String> = []
        // Words, not a regular expression: Swift's Regex over every line of the repository took
        // 12 s of a debug build, this takes under one.
        for line in code.split(whereSeparator: \.isNewline) where line.contains("import") {
            var words = line.split(whereSeparator: \.isWhitespace)[...]
            while let first = words.first, first.hasPrefix("@") { words = words.dropFirst() }
            if let first = words.first, accessLevels.contains(first) { words = words.dropFirst() }
            guard words.first == "import" else { continue }
            words = words.dropFirst()
            if let first = words.first, importKinds.contains(first) { words = words.dropFirst() }
            guard let path = words.first, let module = path.split(separator: ".").first,
                  module.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { continue }
            modules.insert(String(module))
        }
        return modules
    }

    private static let accessLevels: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
    private static let importKinds: Set<Substring> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]
}
