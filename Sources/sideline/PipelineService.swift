import Foundation
import HLSPlaylist
import Logging
import MediaPipeline
import ServiceLifecycle
import Synchronization

/// Runs one stream's pipeline as a service of the process: starts it with the server, and on
/// shutdown stops it and waits until every variant has written its last segment.
///
/// It also keeps the pipeline running. A pipeline that cannot be opened (a camera that is
/// down when a recorded stream is restarted) is retried with backoff while the recording is
/// served; a pipeline that stops finishing segments is restarted by a watchdog. A restarted
/// pipeline continues the same recording after an EXT-X-DISCONTINUITY.
final class PipelineService: Service, Sendable {
    let plan: ServePlan
    let publisher: StreamPublisher
    private let logger: Logger
    private let state = Mutex(State())
    private let endStream = Atomic<Bool>(false)

    private struct State {
        var current: CurrentRun?
        /// Totals of the pipelines this service ran before the current one.
        var carried = PipelineStatistics()
        /// Set at shutdown, removal or end: nothing is opened or restarted after it.
        var stopping = false
        /// Whether a thread is busy opening a pipeline.
        var opening = false
    }

    /// A started (or ready) pipeline and what the watchdog knows of it.
    private struct CurrentRun {
        let pipeline: LivePipeline
        let events: EventForwarder
        let installed: ContinuousClock.Instant
    }

    /// `opened`: a pipeline opened before serving (a new stream must fail before anything is
    /// served); nil for a recorded stream, which is served first and opened by `run()`.
    init(plan: ServePlan, publisher: StreamPublisher, opened: OpenedPipeline?, logger: Logger) {
        self.plan = plan
        self.publisher = publisher
        self.logger = logger
        if let opened { install(opened) }
    }

    /// The pipeline running now; nil while one is being opened.
    var pipeline: LivePipeline? { state.withLock { $0.current?.pipeline } }

    /// Totals over every pipeline this service has run.
    var statistics: PipelineStatistics {
        state.withLock { s in s.carried.adding(s.current?.pipeline.statistics ?? PipelineStatistics()) }
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
        let pipeline = state.withLock { s in
            s.stopping = true
            return s.current?.pipeline
        }
        // Without a pipeline nothing would report `.finished`: close the playlists here.
        guard let pipeline else { return publisher.endStream() }
        pipeline.stop()
    }

    /// Stops the pipeline without ending the stream and waits until it has finished. Blocks:
    /// call on a thread of your own.
    func stopForRemoval() {
        publisher.prepareStop(endStream: false)
        let pipeline = state.withLock { s in
            s.stopping = true
            return s.current?.pipeline
        }
        pipeline?.stop()
        _ = pipeline?.waitUntilFinished(seconds: 10)
    }

    func run() async throws {
        if let pipeline = self.pipeline {
            pipeline.start()
        } else {
            openInBackground(reason: "recorded stream: serving its recording while the input is opened")
        }
        let mirror = Task { await mirrorStatisticsIntoMetrics() }
        let watchdog = Task { await watch() }
        defer {
            mirror.cancel()
            watchdog.cancel()
        }
        try? await gracefulShutdown()
        publisher.prepareStop(endStream: endStreamOnStop)
        let pipeline = state.withLock { s in
            s.stopping = true
            return s.current?.pipeline
        }
        guard let pipeline else {
            if endStreamOnStop { publisher.endStream() }
            return
        }
        pipeline.stop()
        await pipeline.finished()
    }

    // MARK: Opening and restarting

    /// Connects an opened pipeline to the publisher and makes it the current one.
    private func install(_ opened: OpenedPipeline) {
        publisher.beginRun(of: opened.pipeline)
        opened.events.connect(publisher)
        state.withLock { $0.current = CurrentRun(pipeline: opened.pipeline, events: opened.events, installed: .now) }
    }

    /// Opens the pipeline on a thread of its own (opening blocks), retrying with backoff from
    /// 1 s to 30 s until it opens or the service stops, then starts it.
    private func openInBackground(reason: String) {
        let proceed = state.withLock { s in
            guard !s.stopping, !s.opening else { return false }
            s.opening = true
            return true
        }
        guard proceed else { return }
        logger.notice("opening the pipeline", metadata: ["reason": "\(reason)"])
        let thread = Thread { [self] in
            var delay = 1.0
            var attempt = 1
            while !state.withLock({ $0.stopping }) {
                do {
                    let opened = try plan.openPipeline(logger: logger)
                    let started = state.withLock { s -> Bool in
                        s.opening = false
                        return !s.stopping
                    }
                    guard started else { return }
                    install(opened)
                    opened.pipeline.start()
                    logger.notice("pipeline started", metadata: ["attempt": "\(attempt)"])
                    return
                } catch {
                    publisher.noteInputUnavailable()
                    logger.critical("cannot start the pipeline; what is recorded stays served, retrying", metadata: [
                        "error": "\(error)", "attempt": "\(attempt)", "retry-in-seconds": "\(Int(delay))",
                    ])
                    let until = ContinuousClock.now + .milliseconds(Int64(delay * 1000))
                    while ContinuousClock.now < until && !state.withLock({ $0.stopping }) { Thread.sleep(forTimeInterval: 0.1) }
                    delay = min(delay * 2, 30)
                    attempt += 1
                }
            }
            state.withLock { $0.opening = false }
        }
        thread.name = "sideline.open.\(plan.stream.name)"
        thread.start()
    }

    /// Every half second: a pipeline that has not finished a segment for longer than
    /// `stream.watchdog_timeout` (plus one segment's duration before its first one) is
    /// abandoned and a new one opened.
    private func watch() async {
        let timeout = plan.stream.watchdogTimeout
        guard timeout > 0 else { return }
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(500))
            guard let run = state.withLock({ $0.stopping ? nil : $0.current }), !run.events.hasFinished else { continue }
            let last = run.events.lastSegment
            let quietSince = last ?? run.installed
            let allowance = timeout + (last == nil ? plan.configuration.segmentDuration : 0)
            let quiet = quietSince.duration(to: .now).inSeconds
            guard quiet > allowance else { continue }
            restart(run, quietFor: quiet)
        }
    }

    private func restart(_ run: CurrentRun, quietFor seconds: Double) {
        let abandoned = state.withLock { s -> Bool in
            guard !s.stopping, s.current?.pipeline === run.pipeline else { return false }
            s.carried = s.carried.adding(run.pipeline.statistics)
            s.current = nil
            return true
        }
        guard abandoned else { return }
        // Whatever the old pipeline still reports goes nowhere: its segments are not recorded.
        run.events.disconnect()
        run.pipeline.stop()
        publisher.streamMetrics.pipelineRestarts.increment()
        logger.error("pipeline made no progress; restarting it (the recording continues after an EXT-X-DISCONTINUITY)",
                     metadata: ["quiet-seconds": "\(DecimalFormat.compact(seconds))"])
        let thread = Thread { [self] in
            // A stopped pipeline releases its input (a UDP port, a device) as it finishes; one
            // hung in a call that cannot be interrupted is left behind.
            if !run.pipeline.waitUntilFinished(seconds: 3) {
                logger.warning("the stalled pipeline did not finish; it is left behind and a new one is opened")
            }
            openInBackground(reason: "watchdog restart")
        }
        thread.name = "sideline.restart.\(plan.stream.name)"
        thread.start()
    }

    /// The pipeline keeps plain totals; metrics get the increase since the last look.
    private func mirrorStatisticsIntoMetrics() async {
        var last = PipelineStatistics()
        let metrics = publisher.streamMetrics
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            let now = statistics
            metrics.corruptPackets.increment(by: max(0, now.corruptPackets - last.corruptPackets))
            metrics.framesDroppedBySlowVariants.increment(by: max(0, now.framesDroppedBySlowVariants - last.framesDroppedBySlowVariants))
            metrics.inputFramesDropped.increment(by: max(0, now.droppedFrames - last.droppedFrames))
            metrics.inputFramesRepeated.increment(by: max(0, now.repeatedFrames - last.repeatedFrames))
            last = now
        }
    }
}

extension PipelineStatistics {
    /// Totals of two pipelines that ran one after the other.
    func adding(_ other: PipelineStatistics) -> PipelineStatistics {
        var sum = self
        sum.mediaTime += other.mediaTime
        sum.segments += other.segments
        sum.bytesWritten += other.bytesWritten
        sum.corruptPackets += other.corruptPackets
        sum.droppedFrames += other.droppedFrames
        sum.framesDroppedBySlowVariants += other.framesDroppedBySlowVariants
        sum.repeatedFrames += other.repeatedFrames
        sum.timestampJumps += other.timestampJumps
        sum.loops += other.loops
        sum.inputLosses += other.inputLosses
        return sum
    }
}

/// Keeps the console status line up to date until shutdown.
struct ConsoleService: Service {
    let console: ConsoleStatus

    func run() async throws {
        await cancelWhenGracefulShutdown { await console.run() }
    }
}
