import Foundation
import Testing

/// The module table of `Docs/architecture.md` and the README's repository table name exactly
/// the targets `Package.swift` declares, so a newcomer reading either finds every target and
/// no target that is gone.
@Suite struct ModuleTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ path: String) -> String {
        (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? ""
    }

    /// The targets that are not test targets, from `Package.swift` (library, executable and
    /// system-library targets, and the end-to-end tests' `TestSupport`).
    static var targets: Set<String> {
        let manifest = read("Package.swift")
        var names: Set<String> = []
        let pattern = /\.(target|executableTarget|systemLibrary)\(\s*name:\s*"([A-Za-z]+)"/
        for match in manifest.matches(of: pattern) { names.insert(String(match.output.2)) }
        return names
    }

    /// The names in backticks in `text`.
    static func codeSpans(_ text: some StringProtocol) -> Set<String> {
        Set(text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
    }

    @Test func theManifestHasTargets() {
        #expect(Self.targets.count > 10, "Package.swift could not be read from \(Self.root.path)")
        #expect(Self.targets.contains("sideline") && Self.targets.contains("CFFmpeg"))
    }

    @Test func architectureNamesEveryTargetOnce() throws {
        let doc = Self.read("Docs/architecture.md")
        let start = try #require(doc.range(of: "\n## Modules\n"), "Docs/architecture.md has no '## Modules'")
        let section = doc[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        let rows = section[..<end].split(separator: "\n").filter { $0.hasPrefix("| `") }
        let documented = rows.compactMap { Self.codeSpans($0.split(separator: "|").first ?? "").first }
        #expect(Set(documented) == Self.targets,
                "in the doc, not the package: \(Set(documented).subtracting(Self.targets).sorted()); in the package, not the doc: \(Self.targets.subtracting(documented).sorted())")
        #expect(documented.count == Set(documented).count, "a target is listed twice")
    }

    @Test func theReadmeNamesEverySourceTarget() throws {
        let readme = Self.read("README.md")
        let row = try #require(readme.split(separator: "\n").first { $0.hasPrefix("| `Sources/` |") }, "README.md's repository table has no Sources/ row")
        let named = Self.codeSpans(row).subtracting(["Sources/", "Docs/architecture.md", ".html", ".css", ".js"])
        let sources = Self.targets.subtracting(["TestSupport"])
        #expect(named == sources, "in the README, not the package: \(named.subtracting(sources).sorted()); in the package, not the README: \(sources.subtracting(named).sorted())")
    }
}
