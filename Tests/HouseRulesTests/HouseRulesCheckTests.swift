import Foundation
import Testing

/// Each house rule catches what it is for, on a small fake package: a clean one passes, and
/// each row breaks one rule in one place.
@Suite struct HouseRulesCheckTests {
    static let fake = """
        // swift-tools-version:6.0
        import PackageDescription

        let pureCores: [Target] = [
            // A comment with "quotes", .target(name: "Hidden") and a comma, here.
            .target(name: "Core"),
            .target(name: "Rules", dependencies: ["Core", .product(name: "Crypto", package: "swift-crypto")]),
        ]
        let services: [Target] = [
            .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat"),
            .target(
                name: "Media",
                dependencies: ["CFFmpeg", "Core"]
            ),
            .target(name: "Web", dependencies: ["Rules", .product(name: "NIOCore", package: "swift-nio"), .product(name: "_NIOFileSystem", package: "swift-nio")]),
        ]
        let executable: [Target] = [
            .executableTarget(name: "tool", dependencies: ["Web", "Media"]),
        ]
        let tests: [Target] = [
            .testTarget(name: "RulesTests", dependencies: ["Rules"], path: "Tests/Unit"),
            .testTarget(name: "EndToEndTests", dependencies: ["tool"]),
        ]

        let package = Package(
            name: "Fake",
            products: [.executable(name: "tool", targets: ["tool"])],
            targets: pureCores + services + executable + tests,
            swiftLanguageModes: [.v6]
        )

        let withoutMemberImportVisibility: Set<String> = []
        for target in package.targets where target.type != .system && !withoutMemberImportVisibility.contains(target.name) {
            target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
        }
        """

    /// What the fake package's files import when every rule holds.
    static let cleanImports: [String: Set<String>] = [
        "Core": ["Foundation"],
        "Rules": ["Core", "Crypto", "Synchronization"],
        "Media": ["CFFmpeg", "Core"],
        "Web": ["Rules", "NIOCore", "NIOFileSystem"],
        "tool": ["Web", "Media", "Foundation"],
        "RulesTests": ["Rules", "Testing"],
        "EndToEndTests": ["Testing"],
    ]

    static let cleanTable = """
        # Architecture

        ## Modules

        | target | job | depends on |
        | --- | --- | --- |
        | `Core` | the vocabulary | Foundation |
        | `Rules` | the decisions | `Core`, `Crypto` |
        | `CFFmpeg` | FFmpeg | Debian's libav*-dev |
        | `Media` | the pipeline | CFFmpeg, Core |
        | `Web` | the server | Rules, NIOCore, _NIOFileSystem |
        | `tool` | the command line | Web, Media |

        ## Threads
        | `Ghost` | not in the table's section | nothing |
        """

    static func parsed(_ text: String = fake) throws -> Manifest { try ManifestParser.parse(text) }

    static func edited(_ replacements: [(String, String)]) throws -> String {
        var text = fake
        for (old, new) in replacements {
            guard let range = text.range(of: old) else { throw ManifestParseError(description: "the fake has no \(old)") }
            text.replaceSubrange(range, with: new)
        }
        return text
    }

    // MARK: The parser

    @Test func theParserReadsEveryTargetItsGroupAndDependencies() throws {
        let manifest = try Self.parsed()
        #expect(manifest.groups == ["pureCores", "services", "executable", "tests"])
        #expect(manifest.targets.map(\.name) == ["Core", "Rules", "CFFmpeg", "Media", "Web", "tool", "RulesTests", "EndToEndTests"])
        #expect(manifest.target(named: "Rules")?.dependencies == [.target("Core"), .product(name: "Crypto", package: "swift-crypto")])
        #expect(manifest.target(named: "Media")?.dependencies == [.target("CFFmpeg"), .target("Core")])
        #expect(manifest.target(named: "CFFmpeg")?.kind == .systemLibrary)
        #expect(manifest.target(named: "tool")?.group == "executable")
        #expect(manifest.target(named: "RulesTests")?.directory == "Tests/Unit")
        #expect(manifest.target(named: "EndToEndTests")?.directory == "Tests/EndToEndTests")
        #expect(manifest.target(named: "Media")?.directory == "Sources/Media")
        #expect(manifest.withoutMemberImportVisibility == [])
    }

    /// What the parser cannot read, it says, rather than leave a target out.
    @Test(arguments: [
        ("    .target(name: \"Core\"),\n", "    .target(name: \"Core\"),\n    helper(\"Extra\"),\n"),
        (".target(name: \"Core\")", ".target(name: coreName)"),
        ("targets: pureCores + services + executable + tests,", "targets: pureCores + services + executable + tests + [.target(name: \"Loose\")],"),
        ("targets: pureCores + services + executable + tests,", "targets: pureCores + services + executable,"),
        ("\"Rules\", .product(", "\"Rules\", .product(name: nioCore, package: \"swift-nio\"), .product("),
        ("dependencies: [\"Web\", \"Media\"]", "dependencies: names"),
        ("let withoutMemberImportVisibility: Set<String> = []", "let withoutMemberImportVisibility = skipped"),
    ])
    func theParserRefusesWhatItCannotRead(old: String, new: String) throws {
        let text = try Self.edited([(old, new)])
        #expect(throws: ManifestParseError.self) { try Self.parsed(text) }
    }

    // MARK: Pure cores

    @Test func aCleanPackageBreaksNoRule() throws {
        let manifest = try Self.parsed()
        #expect(HouseRules.pureCores(manifest) == [])
        #expect(HouseRules.imports(manifest, imports: Self.cleanImports) == [])
        #expect(HouseRules.memberImportVisibility(manifest) == [])
        #expect(HouseRules.moduleTable(Self.cleanTable, manifest) == [])
    }

    @Test(arguments: [
        // A pure core on a service, on the FFmpeg system library, on NIO, Hummingbird, the HTTP client.
        (".target(name: \"Core\")", ".target(name: \"Core\", dependencies: [\"Media\"])", "pure core Core depends on Media"),
        (".target(name: \"Core\")", ".target(name: \"Core\", dependencies: [\"CFFmpeg\"])", "pure core Core depends on CFFmpeg"),
        ("[\"Core\", .product(name: \"Crypto\"", "[\"Core\", .product(name: \"NIOPosix\", package: \"swift-nio\"), .product(name: \"Crypto\"", "pure core Rules reaches NIOPosix"),
        ("[\"Core\", .product(name: \"Crypto\"", "[\"Core\", .product(name: \"HummingbirdCore\", package: \"hummingbird\"), .product(name: \"Crypto\"", "pure core Rules reaches HummingbirdCore"),
        ("[\"Core\", .product(name: \"Crypto\"", "[\"Core\", .product(name: \"AsyncHTTPClient\", package: \"async-http-client\"), .product(name: \"Crypto\"", "pure core Rules reaches AsyncHTTPClient"),
        // Products outside the allow-list, though no network stack (issue 33: the deny-list let them through).
        ("[\"Core\", .product(name: \"Crypto\"", "[\"Core\", .product(name: \"Logging\", package: \"swift-log\"), .product(name: \"Crypto\"", "pure core Rules reaches Logging"),
        ("[\"Core\", .product(name: \"Crypto\"", "[\"Core\", .product(name: \"ZIPFoundation\", package: \"ZIPFoundation\"), .product(name: \"Crypto\"", "pure core Rules reaches ZIPFoundation"),
        // Through another pure core: the way is named.
        (".target(name: \"Core\")", ".target(name: \"Core\", dependencies: [\"Web\"])", "pure core Rules depends on Web, which is not a pure core (services): Rules -> Core -> Web"),
    ])
    func aPureCoreThatReachesDownIsCaught(old: String, new: String, expected: String) throws {
        let violations = HouseRules.pureCores(try Self.parsed(Self.edited([(old, new)])))
        #expect(violations.contains { $0.message.contains(expected) }, "\(violations)")
        #expect(violations.allSatisfy { $0.rule == .pureCore })
    }

    @Test func aSystemLibraryAmongThePureCoresIsCaught() throws {
        let library = "    .systemLibrary(name: \"CFFmpeg\", pkgConfig: \"libavformat\"),\n"
        let text = try Self.edited([(library, ""), ("    .target(name: \"Core\"),\n", "    .target(name: \"Core\"),\n" + library)])
        let violations = HouseRules.pureCores(try Self.parsed(text))
        #expect(violations.map(\.message).contains { $0.contains("CFFmpeg is a systemLibrary in pureCores") }, "\(violations)")
    }

    /// A pure core's files import no toolchain module that does IO (issue 33: FoundationNetworking
    /// was no part of any rule).
    @Test(arguments: [(["Foundation", "Synchronization"], []), (["FoundationNetworking"], ["FoundationNetworking"]), (["Dispatch", "Glibc", "Foundation"], ["Dispatch", "Glibc"])] as [([String], [String])])
    func aPureCoreImportsOnlyPureToolchainModules(imported: [String], caught: [String]) throws {
        let manifest = try Self.parsed()
        var imports = Self.cleanImports
        imports["Core", default: []].formUnion(imported)
        let violations = HouseRules.pureImports(manifest, imports: imports)
        #expect(violations.map(\.subject) == caught.map { _ in "Core" })
        #expect(caught.allSatisfy { module in violations.contains { $0.message.contains("imports \(module)") } }, "\(violations)")
        // A service may import them.
        imports["Web", default: []].formUnion(["FoundationNetworking", "Dispatch"])
        #expect(HouseRules.pureImports(manifest, imports: imports).count == caught.count)
    }

    @Test func aPackageWithoutPureCoresIsCaught() throws {
        let text = try Self.edited([("let pureCores: [Target]", "let cores: [Target]"), ("targets: pureCores +", "targets: cores +")])
        #expect(HouseRules.pureCores(try Self.parsed(text)).map(\.rule) == [.pureCore])
    }

    // MARK: Imports

    @Test(arguments: [
        ("Web", ["Rules", "NIOCore", "NIOFileSystem", "Hummingbird"], Violation.Rule.undeclaredImport, "Web imports Hummingbird but does not declare it"),
        ("Media", ["CFFmpeg", "Core", "MPEGTS"], .undeclaredImport, "Media imports MPEGTS"),
        ("Rules", ["Core"], .unusedDependency, "Rules declares Crypto but none of its files imports it"),
        ("Web", ["Rules", "NIOCore"], .unusedDependency, "Web declares _NIOFileSystem"),
        ("RulesTests", ["Testing"], .unusedDependency, "RulesTests declares Rules"),
    ])
    func anImportThatDiffersFromTheDeclarationIsCaught(target: String, imports: [String], rule: Violation.Rule, expected: String) throws {
        var all = Self.cleanImports
        all[target] = Set(imports)
        let violations = HouseRules.imports(try Self.parsed(), imports: all)
        #expect(violations.map(\.rule) == [rule], "\(violations)")
        #expect(violations.first?.message.contains(expected) == true, "\(violations)")
    }

    @Test func aDependencyOnNoTargetIsCaught() throws {
        let text = try Self.edited([("dependencies: [\"CFFmpeg\", \"Core\"]", "dependencies: [\"CFFmpeg\", \"Core\", \"Logging\"]")])
        let violations = HouseRules.imports(try Self.parsed(text), imports: Self.cleanImports)
        #expect(violations.map(\.rule) == [.unknownDependency])
    }

    @Test func memberImportVisibilityMustBeOnWithOnlyRealExceptions() throws {
        let without = try Self.edited([(".enableUpcomingFeature(\"MemberImportVisibility\")", ".enableUpcomingFeature(\"ExistentialAny\")")])
        #expect(HouseRules.memberImportVisibility(try Self.parsed(without)).map(\.rule) == [.memberImportVisibility])
        let stale = try Self.edited([("Set<String> = []", "Set<String> = [\"Media\", \"Gone\"]")])
        #expect(HouseRules.memberImportVisibility(try Self.parsed(stale)).map(\.subject) == ["Gone"])
    }

    @Test(arguments: [
        ("import Foundation\nimport NIOCore\n", ["Foundation", "NIOCore"]),
        ("@preconcurrency import Crypto\n@testable import Rules\npublic import Web\n", ["Crypto", "Rules", "Web"]),
        ("import struct NIOCore.ByteBuffer\n  import func Glibc.recv\n", ["NIOCore", "Glibc"]),
        ("@_spi(Testing) import Rules\n", ["Rules"]),
        ("#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif\n", ["FoundationNetworking"]),
        ("// import Commented\n/* import Blocked\n /* nested */ import StillBlocked */\nlet x = 1 // import Trailing\n", []),
        ("let source = \"\"\"\n    import InAString\n    \"\"\"\nlet raw = #\"\"\"\nimport InARawString\n\"\"\"#\nimport After\n", ["After"]),
        ("let important = 1\nfunc imports() {}\n", []),
    ] as [(String, Set<String>)])
    func importsAreReadFromCodeOnly(source: String, expected: Set<String>) {
        #expect(SourceImports.modules(in: source) == expected)
    }

    // MARK: Doc tables

    @Test(arguments: [
        ("| `Web` | the server | Rules, NIOCore, _NIOFileSystem |\n", "", "Web is a target of Package.swift but has no row"),
        ("| `tool` |", "| `Gone` | left | nothing |\n| `tool` |", "Gone is listed but Package.swift has no such target"),
        ("| `tool` |", "| `RulesTests` | tests | Rules |\n| `tool` |", "RulesTests is listed but Package.swift has no such target"),
        ("| `tool` |", "| `Core` | again | nothing |\n| `tool` |", "Core is listed twice"),
        ("| Web, Media |", "| Web, Media, Core |", "not in Package.swift [\"Core\"]"),
        ("| CFFmpeg, Core |", "| CFFmpeg |", "not in the doc [\"Core\"]"),
        ("| Rules, NIOCore, _NIOFileSystem |", "| Rules, SwiftNIO |", "Web's \"depends on\" differs"),
    ])
    func aModuleTableThatDriftsIsCaught(old: String, new: String, expected: String) throws {
        let doc = Self.cleanTable.replacingOccurrences(of: old, with: new)
        #expect(doc != Self.cleanTable)
        let violations = HouseRules.moduleTable(doc, try Self.parsed())
        #expect(violations.contains { $0.message.contains(expected) } && violations.allSatisfy { $0.rule == .moduleTable }, "\(violations)")
    }

    @Test func theReadmeRowNamesExactlyTheSourceTargets() throws {
        let manifest = try Self.parsed()
        let clean = "| `Sources/` | pure `Core` and `Rules`; `CFFmpeg` and `Media`; `Web` (its `.html`); `tool` |\n"
        #expect(HouseRules.readmeTable(clean, manifest) == [])
        #expect(HouseRules.readmeTable(clean.replacingOccurrences(of: "`Web`", with: "the server"), manifest).map(\.subject) == ["Web"])
        #expect(HouseRules.readmeTable(clean.replacingOccurrences(of: "`tool`", with: "`tool`, `Old`"), manifest).map(\.subject) == ["Old"])
        #expect(HouseRules.readmeTable("no table", manifest).map(\.rule) == [.readmeTable])
    }

    // MARK: The executable and the repository

    @Test(arguments: [(999, 0), (1_000, 1), (1_245, 1)])
    func theExecutableStaysUnderAThousandLines(lines: Int, violations: Int) {
        #expect(HouseRules.executableSize(lines: lines).count == violations)
    }

    @Test func linesAreCountedAsWcCountsThem() {
        #expect(HouseRules.lineCount(["a\nb\n", "c", "", "\n\n"]) == 5)
    }

    @Test(arguments: [
        (".build/debug/sideline", true), (".build-release/x.json", true), ("Sources/.swiftpm/config", true),
        ("Tests/Helpers/__pycache__/page_check.cpython-311.pyc", true), ("scripts/x.pyc", true),
        ("Package.resolved", true), ("Sources/CFFmpeg/shim.o", true), ("default.profraw", true),
        ("Package.swift", false), ("Sources/sideline/Sideline.swift", false), ("scripts/bench/build.sh", false),
        ("Docs/a.build.md", false), ("Tests/Helpers/page_check.py", false), ("Samples/sample.mp4", false),
    ])
    func buildArtefactsAndCachesMustNotBeTracked(path: String, isArtefact: Bool) {
        #expect(HouseRules.trackedArtefacts([path]).isEmpty != isArtefact)
    }

    // MARK: The tests

    @Test func aTestThatCancelsItsServerIsCaught() {
        let files = [
            "Tests/A/Cancels.swift": "let server = Task { try await app.runService(gracefulShutdownSignals: []) }\ndefer { server.cancel() }",
            "Tests/A/Graceful.swift": "try await ServerUnderTest.with({ OriginServer.makeApplication(onServerRunning: $0) }) { port in }",
            "Tests/TestSupport/ServerUnderTest.swift": "// not app.runService(): a ServiceGroup",
        ]
        #expect(HouseRules.serversStoppedGracefully(files).map(\.subject) == ["Tests/A/Cancels.swift"])
    }

    /// A public type of a services target that no test names is caught unless it says why it
    /// decides nothing; a stale reason is caught too. Pure cores are not this rule's.
    @Test(arguments: [
        ("named", ["/r/Tests/WebTests/A.swift": "let g = Gate()"], [:], []),
        ("unnamed", [:], [:], ["Gate"]),
        ("named only by the house rules", ["/r/Tests/HouseRulesTests/X.swift": "Gate"], [:], ["Gate"]),
        ("said why", [:], ["Gate": "wiring"], []),
        ("said why but named", ["/r/Tests/WebTests/A.swift": "Gate.open()"], ["Gate": "wiring"], ["Gate"]),
        ("said why of nothing", [:], ["Gate": "wiring", "Gone": "was wiring"], ["Gone"]),
    ] as [(String, [String: String], [String: String], [String])])
    func aServiceTypeNoTestNamesIsCaught(name: String, tests: [String: String], without: [String: String], caught: [String]) throws {
        let sources = [
            "/r/Sources/Web/Gate.swift": "// public struct Commented {}\npublic final class Gate: Sendable {\n    public struct Nested {}\n}\nstruct Hidden {}",
            "/r/Sources/Rules/Rule.swift": "public enum Rule {}",
        ]
        let violations = HouseRules.serviceTypesNamedByTests(try ManifestParser.parse(Self.fake), sources: sources, tests: tests, without: without)
        #expect(violations.map(\.subject) == caught, "\(name): \(violations)")
    }
}
