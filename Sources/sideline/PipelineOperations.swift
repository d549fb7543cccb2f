import HLSOrigin
import MediaPipeline

/// The admin API's operations, carried out on the running pipelines.
struct PipelineOperations: StreamOperations {
    let pipelines: [String: LivePipeline]

    private func pipeline(_ stream: String) throws(AdminError) -> LivePipeline {
        guard let pipeline = pipelines[stream] else { throw .unknownStream(stream) }
        return pipeline
    }

    func failVariant(stream: String, variant: String) throws(AdminError) {
        let pipeline = try pipeline(stream)
        guard pipeline.configuration.variants.contains(where: { $0.name == variant }) else { throw .unknownVariant(variant, of: stream) }
        pipeline.drills.failVariant(variant)
    }

    func stall(stream: String, seconds: Double) throws(AdminError) {
        try pipeline(stream).drills.stall(seconds: seconds)
    }
}
