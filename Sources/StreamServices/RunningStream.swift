import MediaPipeline

/// What the admin operations and retention need of a stream this server runs: a camera's
/// (`PipelineService`) or one a remote encoder pushes (`PushedStreamService`).
public protocol RunningStream: Sendable {
    /// The pipeline running now: nil while one is being opened, and always for a pushed stream.
    var pipeline: LivePipeline? { get }
    /// Whether a remote encoder pushes the stream (no pipeline of this server's to drill).
    var isPushed: Bool { get }
    /// Totals of what the stream has published, for the status line.
    var statistics: PipelineStatistics { get }
    /// Ends the stream now with EXT-X-ENDLIST, while the server goes on.
    func endNow()
    /// Stops taking segments without ending the stream, before its recording is deleted. Blocks.
    func stopForRemoval()
}

extension PipelineService: RunningStream {
    public var isPushed: Bool { false }
}
