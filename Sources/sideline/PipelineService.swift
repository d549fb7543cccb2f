import Foundation
import MediaPipeline
import ServiceLifecycle
import Synchronization

/// Runs the pipeline as a service of the process: starts it with the server, and on shutdown
/// stops it and waits until every variant has written its last segment.
final class PipelineService: Service, Sendable {
    let pipeline: LivePipeline
    let publisher: StreamPublisher
    private let endStream = Atomic<Bool>(false)

    init(pipeline: LivePipeline, publisher: StreamPublisher) {
        self.pipeline = pipeline
        self.publisher = publisher
    }

    /// Whether stopping also ends the stream with EXT-X-ENDLIST (Ctrl-C) or leaves it open (SIGTERM).
    var endStreamOnStop: Bool {
        get { endStream.load(ordering: .relaxed) }
        set { endStream.store(newValue, ordering: .relaxed) }
    }

    func run() async throws {
        pipeline.start()
        try? await gracefulShutdown()
        publisher.prepareStop(endStream: endStreamOnStop)
        pipeline.stop()
        await pipeline.finished()
    }
}

/// Keeps the console status line up to date until shutdown.
struct ConsoleService: Service {
    let console: ConsoleStatus

    func run() async throws {
        await cancelWhenGracefulShutdown { await console.run() }
    }
}
