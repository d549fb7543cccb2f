import Foundation
import Testing

/// The house rules over this repository: Package.swift, the sources, the doc tables and what git
/// tracks. Each test names what breaks its rule and how to fix it.
@Suite struct RepositoryRulesTests {
    /// The manifest was read whole: the checks below would pass on an empty one.
    @Test func packageSwiftIsReadWhole() throws {
        let manifest = try Repository.manifest()
        #expect(manifest.targets.count >= 20, "read \(manifest.targets.count) targets from \(Repository.root.path)/Package.swift")
        #expect(manifest.targets(in: HouseRules.pureGroup).count >= 5)
        for name in ["sideline", "CFFmpeg", "HLSPlaylist", "HLSOrigin", "HouseRulesTests", "TestSupport"] {
            #expect(manifest.target(named: name) != nil, "Package.swift's \(name) was not read")
        }
        #expect(manifest.targets.filter { $0.kind == .executableTarget }.map(\.name) == ["sideline"])
    }

    @Test func pureCoresReachOnlyPureCores() throws {
        let violations = HouseRules.pureCores(try Repository.manifest())
        #expect(violations.isEmpty, "\(violations)")
    }

    @Test func everyTargetImportsWhatItDeclaresAndNothingElse() async throws {
        let manifest = try Repository.manifest()
        let imports = try await Repository.offThePool { try Repository.imports(of: manifest) }
        let violations = HouseRules.imports(manifest, imports: imports) + HouseRules.memberImportVisibility(manifest) + HouseRules.pureImports(manifest, imports: imports)
        #expect(violations.isEmpty, "\(violations)")
    }

    @Test func theModuleTablesMatchPackageSwift() throws {
        let manifest = try Repository.manifest()
        let violations = HouseRules.moduleTable(try Repository.text("Docs/architecture.md"), manifest)
            + HouseRules.readmeTable(try Repository.text("README.md"), manifest)
        #expect(violations.isEmpty, "\(violations)")
    }

    @Test func theExecutableIsUnderAThousandLines() throws {
        let manifest = try Repository.manifest()
        let executable = try #require(manifest.targets.first { $0.kind == .executableTarget })
        let files = try Repository.files(under: executable.directory, endingIn: "")
        #expect(files.count >= 5, "found \(files.count) files under \(executable.directory)")
        let violations = HouseRules.executableSize(lines: HouseRules.lineCount(Array(files.values)))
        #expect(violations.isEmpty, "\(violations)")
    }

    @Test func noBuildArtefactOrCacheIsTracked() async throws {
        let tracked = try await Repository.trackedFiles()
        #expect(tracked.contains("Package.swift"), "git ls-files did not list Package.swift: \(tracked.prefix(5))")
        let violations = HouseRules.trackedArtefacts(tracked)
        #expect(violations.isEmpty, "\(violations)")
    }

    @Test func testsStopTheirServersGracefully() throws {
        let files = try Repository.files(under: "Tests", endingIn: ".swift")
        #expect(files.count >= 100, "found \(files.count) Swift files under Tests")
        let violations = HouseRules.serversStoppedGracefully(files)
        #expect(violations.isEmpty, "\(violations)")
    }

    /// No target over 2,600 lines, no file over 400, no type over 400 across its extensions, but
    /// the debts listed (`HouseRules.targetDebts`, `typeDebts`), which may only shrink.
    @Test func targetsFilesAndTypesStayWithinTheirSizes() throws {
        let manifest = try Repository.manifest()
        let sources = try Repository.files(under: "Sources", endingIn: ".swift")
        #expect(sources.count >= 100, "read \(sources.count) sources")
        let root = Repository.root.path + "/"
        func relative(_ path: String) -> String { path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path }
        let targets = manifest.targets.filter { $0.directory.hasPrefix("Sources/") }
        func module(_ path: String) -> String {
            targets.first { relative(path).hasPrefix($0.directory + "/") }?.name ?? "?"
        }
        var targetLines: [String: Int] = [:]
        for (path, text) in sources { targetLines[module(path), default: 0] += HouseRules.lineCount([text]) }
        let fileLines = Dictionary(uniqueKeysWithValues: sources.map { (relative($0.key), HouseRules.lineCount([$0.value])) })
        let violations = HouseRules.sizes(targetLines, limit: HouseRules.targetLimit, debts: HouseRules.targetDebts, rule: .targetSize, what: "target")
            + HouseRules.sizes(fileLines, limit: HouseRules.fileLimit, debts: [:], rule: .fileSize, what: "file")
            + HouseRules.sizes(HouseRules.typeSizes(sources, module: module), limit: HouseRules.typeLimit, debts: HouseRules.typeDebts, rule: .typeSize, what: "type")
        #expect(violations.isEmpty, "\(violations)")
    }

    /// Every public type of the services targets is named by a test, or says why it needs none.
    @Test func everyServiceTypeIsNamedByATestOrSaysWhyNot() throws {
        let sources = try Repository.files(under: "Sources", endingIn: ".swift")
        let tests = try Repository.files(under: "Tests", endingIn: ".swift")
        #expect(sources.count >= 100 && tests.count >= 100, "read \(sources.count) sources and \(tests.count) tests")
        let violations = HouseRules.serviceTypesNamedByTests(try Repository.manifest(), sources: sources, tests: tests)
        #expect(violations.isEmpty, "\(violations)")
    }
}
