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

    /// Ends the stream now, while the server goes on (the admin API's `end`).
    func endNow() {
        endStreamOnStop = true
        publisher.prepareStop(endStream: true)
        pipeline.stop()
    }

    /// Stops the pipeline without ending the stream and waits until it has finished. Blocks:
    /// call on a thread of your own.
    func stopForRemoval() {
        publisher.prepareStop(endStream: false)
        pipeline.stop()
        pipeline.waitUntilFinished()
    }

    func run() async throws {
        pipeline.start()
        let mirror = Task { await mirrorStatisticsIntoMetrics() }
        defer { mirror.cancel() }
        try? await gracefulShutdown()
        publisher.prepareStop(endStream: endStreamOnStop)
        pipeline.stop()
        await pipeline.finished()
    }

    /// The pipeline keeps plain totals; metrics get the increase since the last look.
    private func mirrorStatisticsIntoMetrics() async {
        var last = PipelineStatistics()
        let metrics = publisher.streamMetrics
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            let now = pipeline.statistics
            metrics.corruptPackets.increment(by: now.corruptPackets - last.corruptPackets)
            metrics.framesDroppedBySlowVariants.increment(by: now.framesDroppedBySlowVariants - last.framesDroppedBySlowVariants)
            metrics.inputFramesDropped.increment(by: now.droppedFrames - last.droppedFrames)
            metrics.inputFramesRepeated.increment(by: now.repeatedFrames - last.repeatedFrames)
            last = now
        }
    }
}

/// Keeps the console status line up to date until shutdown.
struct ConsoleService: Service {
    let console: ConsoleStatus

    func run() async throws {
        await cancelWhenGracefulShutdown { await console.run() }
    }
}
