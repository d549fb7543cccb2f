import Foundation
import MediaPipeline
import ServiceLifecycle
import Synchronization

/// Runs the pipeline as a service of the process: starts it with the server, and on shutdown
/// stops it and waits until every variant has written its last segment.
final class PipelineService: Service, Sendable {
    let pipeline: LivePipeline
    let publisher: StreamPublisher
    let console: ConsoleStatus
    private let endStream = Atomic<Bool>(false)

    init(pipeline: LivePipeline, publisher: StreamPublisher, console: ConsoleStatus) {
        self.pipeline = pipeline
        self.publisher = publisher
        self.console = console
    }

    /// Whether stopping also ends the stream with EXT-X-ENDLIST (Ctrl-C) or leaves it open (SIGTERM).
    var endStreamOnStop: Bool {
        get { endStream.load(ordering: .relaxed) }
        set { endStream.store(newValue, ordering: .relaxed) }
    }

    func run() async throws {
        pipeline.start()
        let consoleTask = Task { await console.run() }
        try? await gracefulShutdown()
        publisher.prepareStop(endStream: endStreamOnStop)
        pipeline.stop()
        await pipeline.finished()
        consoleTask.cancel()
        console.finish()
    }
}
