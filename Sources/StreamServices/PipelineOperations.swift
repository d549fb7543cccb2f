import Foundation
import OriginAPI
import OriginPolicy
import Logging
import MediaPipeline
import OriginRegistry
import OriginState
import SegmentStore
import SidelineCore

/// The admin API's operations, carried out on the running pipelines and the recordings.
public struct PipelineOperations: StreamOperations {
    let services: [String: any RunningStream]
    let registry: StreamRegistry
    let dataDirectory: String
    let logger: Logger

    public init(services: [String: any RunningStream], registry: StreamRegistry, dataDirectory: String, logger: Logger) {
        self.services = services
        self.registry = registry
        self.dataDirectory = dataDirectory
        self.logger = logger
    }

    /// The stream's running pipeline, for a drill.
    private func pipeline(_ stream: String) throws(Refusal) -> LivePipeline {
        let service = try service(stream)
        guard let pipeline = service.pipeline else {
            if service.isPushed { throw .adminConflict("stream '\(stream)' is pushed by a remote encoder; drills act on a pipeline this server runs") }
            throw .adminConflict("stream '\(stream)' has no running pipeline (its input is being opened); try the drill again when it is live")
        }
        return pipeline
    }

    /// The stream's service: 404 or 410 as the registry's one lookup says (for the operator).
    private func service(_ stream: String) throws(Refusal) -> any RunningStream {
        _ = try existing(stream)
        // A stream the registry knows but this server does not run: a removed one (answered
        // above), or none of ours.
        guard let service = services[stream] else { throw .adminUnknownStream(stream) }
        return service
    }

    /// The registry's one stream lookup (`StreamRegistry.existing`), its refusal for the operator.
    private func existing(_ stream: String) throws(Refusal) -> StreamRegistry.Stream {
        do { return try registry.existing(stream) } catch { throw error.forOperators() }
    }

    public func failVariant(stream: String, variant: String, seconds: Double?) throws(Refusal) {
        let pipeline = try pipeline(stream)
        guard pipeline.configuration.variants.contains(where: { $0.name == variant }) else { throw .adminUnknownVariant(variant, of: stream) }
        pipeline.drills.failVariant(variant, seconds: seconds)
    }

    public func stall(stream: String, seconds: Double) throws(Refusal) {
        try pipeline(stream).drills.stall(seconds: seconds)
    }

    public func cutInput(stream: String, seconds: Double) throws(Refusal) {
        let pipeline = try pipeline(stream)
        guard InputKind(classifying: pipeline.configuration.input).reconnects else {
            throw .adminConflict("stream '\(stream)' reads a file or the test pattern, which cannot be lost; the cut drill needs a camera or feed")
        }
        pipeline.drills.cutInput(seconds: seconds)
    }

    public func endStream(stream: String) throws(Refusal) {
        let service = try service(stream)
        logger.notice("ending the stream (admin API)", metadata: ["stream": "\(stream)"])
        service.endNow()
    }

    public func removeStream(stream: String) throws(Refusal) {
        try removeStream(stream: stream, reason: "removed by the operator through the admin API")
    }

    /// Whether this server encodes the stream now (retention never removes such a stream).
    func isEncoding(_ stream: String) -> Bool {
        guard services[stream] != nil, let phase = registry.stream(named: stream)?.phase else { return false }
        return phase != .ended && phase != .removed
    }

    /// Whether the stream is one of this server's (configured) streams.
    func serves(_ stream: String) -> Bool { services[stream] != nil }

    func removeStream(stream: String, reason: String) throws(Refusal) {
        do { _ = try existing(stream) } catch {
            // Removed already: removing it again changes nothing.
            guard error.kind == .streamRemoved else { throw error }
            return
        }
        // 410 from this moment; the pipeline stops (without EXT-X-ENDLIST) and then the
        // recording is deleted behind the tombstone, on a thread of its own.
        registry.apply(.phase(stream: stream, .removed))
        logger.warning("removing the stream and deleting its recording", metadata: ["stream": "\(stream)", "reason": "\(reason)"])
        let service = services[stream]
        let layout = StreamLayout(dataDirectory: dataDirectory, stream: stream)
        let logger = self.logger
        Thread {
            service?.stopForRemoval()
            do {
                try StreamTombstone.remove(layout, reason: reason)
                logger.notice("stream removed; its recording is deleted", metadata: ["stream": "\(stream)"])
            } catch {
                logger.error("stream removed, but its recording could not be deleted", metadata: ["stream": "\(stream)", "error": "\(error)"])
            }
        }.start()
    }
}
