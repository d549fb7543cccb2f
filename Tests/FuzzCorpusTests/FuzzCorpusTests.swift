import Foundation
import Testing

/// The seed corpus of every fuzz target (Tests/Fixtures/fuzz/<target>/), replayed through the
/// same entry the libFuzzer harness calls: real inputs and every crash found so far.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz")

    @Test func everyTargetHasASeedCorpusAndEveryDirectoryATarget() throws {
        // <target>.dict beside a directory is its libFuzzer dictionary, not a target.
        let directories = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { !$0.hasPrefix(".") && !$0.hasSuffix(".dict") }
        #expect(Set(directories) == Set(FuzzTargets.all.keys))
        for name in directories {
            #expect(try FileManager.default.contentsOfDirectory(atPath: Self.corpus.appendingPathComponent(name).path).count >= 3, "\(name) has seeds")
        }
    }

    @Test func everyDictionaryBelongsToATarget() throws {
        let dictionaries = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { $0.hasSuffix(".dict") }
        for name in dictionaries { #expect(FuzzTargets.all[String(name.dropLast(5))] != nil, "\(name) names no target") }
    }

    @Test(arguments: FuzzTargets.all.keys.sorted())
    func theSeedCorpusRunsThroughItsTarget(target: String) throws {
        let directory = Self.corpus.appendingPathComponent(target)
        let run = try #require(FuzzTargets.all[target])
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
            run(Array(try Data(contentsOf: directory.appendingPathComponent(name))))
        }
    }
}
