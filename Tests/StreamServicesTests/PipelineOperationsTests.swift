import Foundation
import Logging
import OriginPolicy
import OriginRegistry
import OriginState
import StreamServices
import Testing

/// The admin operations take a stream's 404 or 410 from the registry's one lookup
/// (`StreamRegistry.existing`), turned to the operator's refusal: no running pipeline is needed
/// to refuse, so these run without FFmpeg.
@Suite struct PipelineOperationsTests {
    let registry = StreamRegistry()
    let operations: PipelineOperations

    init() {
        registry.apply(.register(stream: "elsewhere", variants: ["720p"], targetDuration: 2))
        registry.apply(.register(stream: "gone", variants: [], targetDuration: 2))
        registry.apply(.phase(stream: "gone", .removed))
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-operations-\(UUID().uuidString)").path
        operations = PipelineOperations(services: [:], registry: registry, dataDirectory: data, logger: Logger(label: "test"))
    }

    /// Every operation, by name, on `stream`.
    func each(on stream: String) -> [(String, () throws(Refusal) -> Void)] {
        [
            ("fail", { () throws(Refusal) in try operations.failVariant(stream: stream, variant: "720p", seconds: 1) }),
            ("stall", { () throws(Refusal) in try operations.stall(stream: stream, seconds: 1) }),
            ("cut", { () throws(Refusal) in try operations.cutInput(stream: stream, seconds: 1) }),
            ("end", { () throws(Refusal) in try operations.endStream(stream: stream) }),
            ("remove", { () throws(Refusal) in try operations.removeStream(stream: stream) }),
        ]
    }

    func refusal(_ operation: () throws(Refusal) -> Void) -> Refusal? {
        do { try operation() } catch { return error }
        return nil
    }

    @Test func aStreamNoOneHasIs404ForEveryOperation() {
        for (name, operation) in each(on: "nowhere") {
            let refused = refusal(operation)
            #expect(refused?.status == 404 && refused?.kind == .noSuchStream, "\(name)")
            #expect(refused?.audience == .operators && refused?.cache == .noStore, "\(name)")
        }
    }

    @Test func aRemovedStreamIs410AndRemovingItAgainChangesNothing() {
        for (name, operation) in each(on: "gone") where name != "remove" {
            let refused = refusal(operation)
            #expect(refused?.status == 410 && refused?.reason == "stream 'gone' was removed", "\(name)")
            #expect(refused?.audience == .operators && refused?.cache == .noStore, "\(name): the operator's answer is never stored")
        }
        #expect(refusal { () throws(Refusal) in try operations.removeStream(stream: "gone") } == nil)
        #expect(registry.stream(named: "gone")?.phase == .removed)
    }

    /// A stream the registry lists but this server does not run: no drill, no end (404); a
    /// removal makes it 410 for every later operation.
    @Test func aStreamThisServerDoesNotRunIsRefusedUntilRemoved() {
        for (name, operation) in each(on: "elsewhere") where name != "remove" {
            #expect(refusal(operation)?.status == 404, "\(name)")
        }
        #expect(refusal { () throws(Refusal) in try operations.removeStream(stream: "elsewhere") } == nil)
        #expect(registry.stream(named: "elsewhere")?.phase == .removed)
        #expect(refusal { () throws(Refusal) in try operations.endStream(stream: "elsewhere") }?.status == 410)
    }
}
