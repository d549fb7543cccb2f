import Foundation

/// Package.swift as the house rules read it: its targets, the group (`let pureCores: [Target]`,
/// ...) each stands in, and what each declares it depends on.
///
/// Why a parser and not `swift package dump-package`: inside `swift test` SwiftPM already holds
/// the lock on `.build`, and a `swift package` started from a test waits for that lock until the
/// test run ends, that is for ever (tried 2026-11-27: "Another instance of SwiftPM is already
/// running ... waiting"). So `ManifestParser` reads the manifest's text, in the regular layout
/// Package.swift keeps for it (its header comment says so), and throws on anything it does not
/// understand rather than skipping it: a rule over a manifest it half read would pass silently.
struct Manifest: Sendable {
    var targets: [ManifestTarget]
    /// The groups in the order `targets:` adds them up.
    var groups: [String]
    /// The targets the MemberImportVisibility loop leaves out; nil when the manifest has no
    /// such loop.
    var withoutMemberImportVisibility: Set<String>?

    func target(named name: String) -> ManifestTarget? { targets.first { $0.name == name } }
    func targets(in group: String) -> [ManifestTarget] { targets.filter { $0.group == group } }
}

struct ManifestTarget: Equatable, Sendable {
    enum Kind: String, Sendable { case target, executableTarget, testTarget, systemLibrary }

    var name: String
    var kind: Kind
    var group: String
    var dependencies: [ManifestDependency]
    /// The `path:` argument, when the target has one.
    var path: String?

    /// Where its sources are: `path:`, or SwiftPM's default.
    var directory: String { path ?? (kind == .testTarget ? "Tests/\(name)" : "Sources/\(name)") }
}

enum ManifestDependency: Hashable, Sendable {
    /// `"X"`, `.target(name: "X")` or `.byName(name: "X")`: a target of this package.
    case target(String)
    /// `.product(name: "P", package: "p")`: a library of another package.
    case product(name: String, package: String)

    var name: String {
        switch self {
        case .target(let name), .product(let name, _): name
        }
    }
}

struct ManifestParseError: Error, CustomStringConvertible {
    var description: String
}

enum ManifestParser {
    /// Reads `text`, a Package.swift in this repository's layout, or throws saying what it
    /// could not read.
    static func parse(_ text: String) throws -> Manifest {
        let code = SwiftText.withoutComments(text)
        let groups = try groupDeclarations(code)
        guard !groups.isEmpty else { throw ManifestParseError(description: "Package.swift declares no `let <group>: [Target] = [...]`") }
        let sum = try targetsArgument(code)
        let declared = Set(groups.map(\.name))
        for name in sum where !declared.contains(name) {
            throw ManifestParseError(description: "`targets:` adds `\(name)`, which is no `let \(name): [Target]` group")
        }
        for name in declared where !sum.contains(name) {
            throw ManifestParseError(description: "the group `\(name)` is declared but `targets:` does not add it")
        }
        var targets: [ManifestTarget] = []
        for group in groups {
            for entry in SwiftText.items(code, in: group.body) {
                targets.append(try target(code, entry, group: group.name))
            }
        }
        return Manifest(targets: targets, groups: sum, withoutMemberImportVisibility: try memberImportVisibilityExceptions(code))
    }

    /// Each `let name: [Target] = [ ... ]`, with the range between its brackets.
    private static func groupDeclarations(_ code: [Character]) throws -> [(name: String, body: Range<Int>)] {
        let text = String(code)
        var found: [(name: String, body: Range<Int>)] = []
        for match in text.matches(of: /let\s+([A-Za-z_][A-Za-z0-9_]*)\s*:\s*\[Target\]\s*=\s*\[/) {
            let open = text.distance(from: text.startIndex, to: match.range.upperBound) - 1
            let close = try SwiftText.closing(code, open)
            found.append((String(match.output.1), open + 1 ..< close))
        }
        return found
    }

    /// The group names of `targets: a + b + c` in `Package(...)`.
    private static func targetsArgument(_ code: [Character]) throws -> [String] {
        let text = String(code)
        guard let match = text.firstMatch(of: /\btargets:\s*([A-Za-z_][A-Za-z0-9_]*(?:\s*\+\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*[,)]/) else {
            throw ManifestParseError(description: "Package(...) has no `targets: <group> + <group> ...` (a sum of the groups and nothing else)")
        }
        return match.output.1.split(separator: "+").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    private static func target(_ code: [Character], _ entry: Range<Int>, group: String) throws -> ManifestTarget {
        let item = String(code[entry])
        guard let call = item.firstMatch(of: /^\.(target|executableTarget|testTarget|systemLibrary)\(/),
              let kind = ManifestTarget.Kind(rawValue: String(call.output.1)) else {
            throw ManifestParseError(description: "an entry of `\(group)` is not a .target/.executableTarget/.testTarget/.systemLibrary call: \(item.prefix(80))")
        }
        let open = entry.lowerBound + call.output.0.count - 1
        let close = try SwiftText.closing(code, open)
        guard close == entry.upperBound - 1 else {
            throw ManifestParseError(description: "an entry of `\(group)` goes on after its call: \(item.prefix(80))")
        }
        let arguments = SwiftText.arguments(code, in: open + 1 ..< close)
        guard let nameRange = arguments["name"], let name = SwiftText.stringLiteral(code, nameRange) else {
            throw ManifestParseError(description: "an entry of `\(group)` has no `name: \"...\"`: \(item.prefix(80))")
        }
        var dependencies: [ManifestDependency] = []
        if let list = arguments["dependencies"] {
            let text = String(code[list])
            guard text.hasPrefix("["), text.hasSuffix("]") else {
                throw ManifestParseError(description: "\(name)'s dependencies are not an array literal")
            }
            for dependency in SwiftText.items(code, in: list.lowerBound + 1 ..< list.upperBound - 1) {
                dependencies.append(try self.dependency(code, dependency, of: name))
            }
        }
        let path = try arguments["path"].map { range in
            guard let path = SwiftText.stringLiteral(code, range) else { throw ManifestParseError(description: "\(name)'s path is not a string literal") }
            return path
        }
        return ManifestTarget(name: name, kind: kind, group: group, dependencies: dependencies, path: path)
    }

    private static func dependency(_ code: [Character], _ range: Range<Int>, of target: String) throws -> ManifestDependency {
        if let name = SwiftText.stringLiteral(code, range) { return .target(name) }
        let item = String(code[range])
        if let call = item.firstMatch(of: /^\.(target|byName|product)\(/) {
            let open = range.lowerBound + call.output.0.count - 1
            let close = try SwiftText.closing(code, open)
            let arguments = SwiftText.arguments(code, in: open + 1 ..< close)
            let name = arguments["name"].flatMap { SwiftText.stringLiteral(code, $0) }
            if call.output.1 == "product", let name, let package = arguments["package"].flatMap({ SwiftText.stringLiteral(code, $0) }) {
                return .product(name: name, package: package)
            }
            if call.output.1 != "product", let name { return .target(name) }
        }
        throw ManifestParseError(description: "\(target) has a dependency this parser does not read: \(item.prefix(80))")
    }

    /// The names in `let withoutMemberImportVisibility: Set<String> = [...]`, when the manifest
    /// also turns the feature on in a loop over `package.targets`; nil when it does not.
    private static func memberImportVisibilityExceptions(_ code: [Character]) throws -> Set<String>? {
        let text = String(code)
        guard text.contains("for target in package.targets"), text.contains(".enableUpcomingFeature(\"MemberImportVisibility\")") else { return nil }
        guard let match = text.firstMatch(of: /let\s+withoutMemberImportVisibility\s*:\s*Set<String>\s*=\s*\[/) else {
            throw ManifestParseError(description: "the MemberImportVisibility loop has no `let withoutMemberImportVisibility: Set<String> = [...]`")
        }
        let open = text.distance(from: text.startIndex, to: match.range.upperBound) - 1
        let close = try SwiftText.closing(code, open)
        return try Set(SwiftText.items(code, in: open + 1 ..< close).map { range in
            guard let name = SwiftText.stringLiteral(code, range) else { throw ManifestParseError(description: "withoutMemberImportVisibility holds something other than string literals") }
            return name
        })
    }
}
