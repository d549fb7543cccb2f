import Foundation

/// One broken house rule: which rule, what breaks it, and what to do, in a sentence.
struct Violation: Hashable, Sendable, CustomStringConvertible {
    enum Rule: String, Sendable {
        case pureCore, undeclaredImport, unusedDependency, unknownDependency, memberImportVisibility
        case moduleTable, readmeTable, executableSize, trackedArtefact, serverCancelledInTest, pureImport
        case untestedServiceType, targetSize, fileSize, typeSize
    }

    var rule: Rule
    var subject: String
    var message: String

    var description: String { message }
}

/// The house rules over plain values: each takes the manifest and file contents and returns
/// what breaks it, so each can be row-tested with a small fake package; `Repository` reads the
/// real ones.
enum HouseRules {
    /// The group of Package.swift whose targets are pure cores.
    static let pureGroup = "pureCores"

    /// The only products a pure core may reach: packages of plain values and functions (YAML,
    /// hashing and HMAC, RFC 8941 structured fields). An allow-list (issue 33): the deny-list
    /// it replaces named NIO, Hummingbird and the HTTP client, and let Logging, Metrics,
    /// ServiceLifecycle or a zip library through.
    static let pureProducts: Set<String> = ["Yams", "Crypto", "RawStructuredFieldValues"]

    /// The only system libraries a pure core may reach, for the same reason: C functions of
    /// plain bytes in and out. OpenSSL's libcrypto gives HMAC-SHA256 (OriginAccess) without a
    /// BoringSSL of its own to compile. Not FFmpeg (threads, files, sockets) and not zlib's
    /// streams, which the services keep.
    static let pureSystemLibraries: Set<String> = ["SidelineLibCrypto"]

    /// The toolchain's modules a pure core may import: the standard library and Foundation's
    /// value types, the synchronisation primitives, regular expressions. Not FoundationNetworking
    /// (URLSession), Dispatch (queues and their threads), or the C library (Glibc, Musl: raw
    /// system calls).
    static let pureToolchainModules: Set<String> = ["Foundation", "FoundationEssentials", "Swift", "_Concurrency", "Synchronization", "RegexBuilder"]

    /// The modules a product provides, where they are not just the product's own name.
    static let productModules: [String: Set<String>] = [
        // swift-nio's file system product holds two modules; the code imports `NIOFileSystem`.
        "_NIOFileSystem": ["_NIOFileSystem", "NIOFileSystem"],
    ]

    // MARK: Layers

    /// A pure core may depend, directly or through others, only on pure cores, on no system
    /// library but `pureSystemLibraries` (never FFmpeg) and no NIO, Hummingbird or HTTP-client
    /// product.
    static func pureCores(_ manifest: Manifest) -> [Violation] {
        let pure = manifest.targets(in: pureGroup)
        guard !pure.isEmpty else {
            return [Violation(rule: .pureCore, subject: pureGroup, message: "Package.swift has no `let \(pureGroup): [Target]` group, or it is empty")]
        }
        var violations: [Violation] = []
        for core in pure {
            if core.kind != .target && !(core.kind == .systemLibrary && pureSystemLibraries.contains(core.name)) {
                violations.append(Violation(rule: .pureCore, subject: core.name, message: "\(core.name) is a \(core.kind.rawValue) in \(pureGroup): a pure core is a plain .target"))
            }
            // Breadth first, remembering the way each target was reached, to name it.
            var way: [String: [String]] = [core.name: [core.name]]
            var queue = [core.name]
            while !queue.isEmpty {
                let name = queue.removeFirst()
                guard let target = manifest.target(named: name), let path = way[name] else { continue }
                for dependency in target.dependencies {
                    let route = (path + [dependency.name]).joined(separator: " -> ")
                    switch dependency {
                    case .product(let product, let package):
                        if !pureProducts.contains(product) {
                            violations.append(Violation(rule: .pureCore, subject: core.name, message: "pure core \(core.name) reaches \(product) (\(package)), which is not one of the pure products (\(pureProducts.sorted().joined(separator: ", "))): \(route). Move the IO into a service beside it and give the core a protocol, or add the product to HouseRules.pureProducts if it is plain values and functions"))
                        }
                    case .target(let next):
                        guard way[next] == nil else { continue }
                        way[next] = path + [next]
                        if let reached = manifest.target(named: next),
                           reached.group != pureGroup || (reached.kind == .systemLibrary && !pureSystemLibraries.contains(next)) {
                            violations.append(Violation(rule: .pureCore, subject: core.name, message: "pure core \(core.name) depends on \(next), which is not a pure core (\(reached.group)): \(route)"))
                        } else {
                            queue.append(next)
                        }
                    }
                }
            }
        }
        return violations
    }

    /// A pure core's files import, of the toolchain's modules, only `pureToolchainModules`.
    /// `imports`: each target's imported modules, all files together.
    static func pureImports(_ manifest: Manifest, imports: [String: Set<String>]) -> [Violation] {
        manifest.targets(in: pureGroup).flatMap { core in
            (imports[core.name] ?? []).intersection(SourceImports.toolchainModules).subtracting(pureToolchainModules).sorted().map { module in
                Violation(rule: .pureImport, subject: core.name, message: "pure core \(core.name) imports \(module), which does IO (a pure core may import \(pureToolchainModules.sorted().joined(separator: ", ")) of the toolchain): move that code into a service beside it")
            }
        }
    }

    // MARK: Imports

    /// Every module a target's sources import is one it declares (a target of the package or
    /// a product), and every dependency it declares is imported by one of its files at least.
    /// `imports`: each target's imported modules, all files together. An executable target
    /// declared as a dependency (the end-to-end tests' `sideline`) is built first, not imported.
    static func imports(_ manifest: Manifest, imports: [String: Set<String>]) -> [Violation] {
        var violations: [Violation] = []
        for target in manifest.targets where target.kind != .systemLibrary {
            let imported = (imports[target.name] ?? []).subtracting(SourceImports.toolchainModules).subtracting([target.name])
            var provided: Set<String> = []
            for dependency in target.dependencies {
                let modules: Set<String>
                switch dependency {
                case .target(let name):
                    guard let declared = manifest.target(named: name) else {
                        violations.append(Violation(rule: .unknownDependency, subject: target.name, message: "\(target.name) depends on \"\(name)\", which is no target of Package.swift (a product needs .product(name:package:))"))
                        continue
                    }
                    if declared.kind == .executableTarget { continue }
                    modules = [name]
                case .product(let name, _):
                    modules = productModules[name] ?? [name]
                }
                provided.formUnion(modules)
                if modules.isDisjoint(with: imported) {
                    violations.append(Violation(rule: .unusedDependency, subject: target.name, message: "\(target.name) declares \(dependency.name) but none of its files imports it: remove it from its dependencies in Package.swift"))
                }
            }
            for module in imported.subtracting(provided).sorted() {
                violations.append(Violation(rule: .undeclaredImport, subject: target.name, message: "\(target.name) imports \(module) but does not declare it: add it to its dependencies in Package.swift (a product whose name differs from its module goes in HouseRules.productModules)"))
            }
        }
        return violations
    }

    /// MemberImportVisibility is on for every Swift target but the ones the manifest names as
    /// exceptions, so the compiler holds each file to the modules it imports itself.
    static func memberImportVisibility(_ manifest: Manifest) -> [Violation] {
        guard let exceptions = manifest.withoutMemberImportVisibility else {
            return [Violation(rule: .memberImportVisibility, subject: "Package.swift", message: "Package.swift does not turn on MemberImportVisibility for its targets (`for target in package.targets ... .enableUpcomingFeature(\"MemberImportVisibility\")`)")]
        }
        return exceptions.sorted().compactMap { name in
            manifest.target(named: name) == nil
                ? Violation(rule: .memberImportVisibility, subject: name, message: "withoutMemberImportVisibility names \(name), which is no target of Package.swift")
                : nil
        }
    }

    // MARK: Doc tables

    /// The targets a module table lists: every target that is not a test target.
    static func documentedTargets(_ manifest: Manifest) -> [ManifestTarget] {
        manifest.targets.filter { $0.kind != .testTarget }
    }

    /// `Docs/architecture.md`'s "## Modules" table lists each target once, and its last column
    /// ("depends on") names exactly what the target declares: the targets and products,
    /// separated by commas ("nothing" for none; toolchain modules such as Foundation may be
    /// named too). A system library's column says where it comes from and is not compared.
    static func moduleTable(_ doc: String, _ manifest: Manifest) -> [Violation] {
        func violation(_ subject: String, _ message: String) -> Violation {
            Violation(rule: .moduleTable, subject: subject, message: "Docs/architecture.md, ## Modules: " + message)
        }
        guard let start = doc.range(of: "\n## Modules\n") else { return [violation("Docs/architecture.md", "no such section")] }
        let section = doc[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var violations: [Violation] = []
        var listed: Set<String> = []
        for row in section[..<end].split(separator: "\n") where row.hasPrefix("| `") {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
            guard cells.count >= 3, let name = codeSpans(cells.first ?? "").first, let last = cells.last else {
                violations.append(violation(String(row.prefix(40)), "a row that is not `| \\`target\\` | job | depends on |`: \(row.prefix(60))"))
                continue
            }
            guard listed.insert(name).inserted else { violations.append(violation(name, "\(name) is listed twice")); continue }
            guard let target = manifest.target(named: name), target.kind != .testTarget else {
                violations.append(violation(name, "\(name) is listed but Package.swift has no such target"))
                continue
            }
            if target.kind == .systemLibrary { continue }
            let documented = Set(last.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces.union(["`"])) })
                .subtracting(["", "nothing"]).subtracting(SourceImports.toolchainModules)
            let declared = Set(target.dependencies.map(\.name))
            if documented != declared {
                let missing = declared.subtracting(documented).sorted(), extra = documented.subtracting(declared).sorted()
                violations.append(violation(name, "\(name)'s \"depends on\" differs from Package.swift: not in the doc \(missing), not in Package.swift \(extra)"))
            }
        }
        for target in documentedTargets(manifest) where !listed.contains(target.name) {
            violations.append(violation(target.name, "\(target.name) is a target of Package.swift but has no row"))
        }
        return violations
    }

    /// The README's repository table names, in its `Sources/` row, exactly the targets whose
    /// sources are under Sources/.
    static func readmeTable(_ readme: String, _ manifest: Manifest) -> [Violation] {
        guard let row = readme.split(separator: "\n").first(where: { $0.hasPrefix("| `Sources/` |") }) else {
            return [Violation(rule: .readmeTable, subject: "README.md", message: "README.md's repository table has no `Sources/` row")]
        }
        let named = codeSpans(row).filter { $0.wholeMatch(of: /[A-Za-z][A-Za-z0-9]*/) != nil }
        let sources = Set(documentedTargets(manifest).filter { $0.directory.hasPrefix("Sources/") }.map(\.name))
        return named.subtracting(sources).sorted().map { Violation(rule: .readmeTable, subject: $0, message: "README.md's Sources/ row names \($0), which is no target under Sources/") }
            + sources.subtracting(named).sorted().map { Violation(rule: .readmeTable, subject: $0, message: "README.md's Sources/ row does not name \($0), a target under Sources/") }
    }

    /// The names in backticks in `text`.
    static func codeSpans(_ text: some StringProtocol) -> Set<String> {
        Set(text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
    }

    // MARK: The executable and the repository

    /// The executable is wiring: under `limit` lines, all its files together.
    static func executableSize(lines: Int, limit: Int = 1_000) -> [Violation] {
        guard lines >= limit else { return [] }
        return [Violation(rule: .executableSize, subject: "sideline", message: "Sources/sideline has \(lines) lines, the house allows under \(limit): move the decision that grew it into a library target, with its tests")]
    }

    /// The number of lines of each text, as `wc -l` counts them (a last line without a newline counts too).
    static func lineCount(_ texts: [String]) -> Int {
        texts.reduce(0) { total, text in
            total + text.reduce(0) { $1.isNewline ? $0 + 1 : $0 } + (text.isEmpty || text.last?.isNewline == true ? 0 : 1)
        }
    }

    /// No build output, cache or resolved-dependencies file is tracked by git.
    /// `paths`: what `git ls-files` lists.
    static func trackedArtefacts(_ paths: [String]) -> [Violation] {
        let directories: Set<String> = [".swiftpm", "__pycache__", "DerivedData", "xcuserdata", ".pytest_cache"]
        let files: Set<String> = ["Package.resolved", ".DS_Store"]
        let suffixes = [".pyc", ".pyo", ".o", ".a", ".so", ".dylib", ".profraw", ".profdata", ".swiftmodule", ".swiftdeps"]
        return paths.filter { path in
            let components = path.split(separator: "/").map(String.init)
            guard let name = components.last else { return false }
            return components.dropLast().contains { directories.contains($0) || $0.hasPrefix(".build") }
                || files.contains(name) || suffixes.contains { name.hasSuffix($0) }
        }.map { Violation(rule: .trackedArtefact, subject: $0, message: "git tracks \($0), a build artefact or cache: `git rm --cached` it and have .gitignore name it") }
    }

    // MARK: The tests

    /// A test runs a server through `TestSupport.ServerUnderTest`, which stops it gracefully,
    /// never with `runService` in a task it cancels: cancelling a server a moment after a
    /// connection arrives traps in SwiftNIO and takes the whole test process down (it stopped
    /// CI's unit phase on 2026-11-27). `files`: each test file's text, by path; the helper
    /// itself and these rules' own rows (which name what they catch) are not held to it.
    static func serversStoppedGracefully(_ files: [String: String]) -> [Violation] {
        files.filter { path, text in
            !path.hasSuffix("/ServerUnderTest.swift") && !path.contains("/HouseRulesTests/") && text.contains(".runService(")
        }
            .keys.sorted()
            .map { Violation(rule: .serverCancelledInTest, subject: $0, message: "\($0) runs a server with runService: start it with TestSupport.ServerUnderTest (start/stop or with), which stops it as `sideline serve` stops, since cancelling it can trap in SwiftNIO") }
    }
}
