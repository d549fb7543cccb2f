import Foundation
import HLSPlaylist
import Logging
import MediaPipeline
import Metrics
import OriginRegistry
import OriginState
import ServiceLifecycle
import SidelineConfig
import SidelineCore
import StreamPublishing
import Synchronization

/// Runs one stream's pipeline as a service of the process: starts it with the server, and on
/// shutdown stops it and waits until every variant has written its last segment.
///
/// It also keeps the pipeline running. A pipeline that cannot be opened (a camera that is
/// down when a recorded stream is restarted) is retried with backoff while the recording is
/// served; a pipeline that stops finishing segments is restarted by a watchdog. A restarted
/// pipeline continues the same recording after an EXT-X-DISCONTINUITY.
public final class PipelineService: Service, Sendable {
    public let plan: ServePlan
    public let publisher: StreamPublisher
    private let logger: Logger
    private let state: Mutex<State>
    private let endStream = Atomic<Bool>(false)

    private struct State {
        var current: CurrentRun?
        /// Totals of the pipelines this service ran before the current one.
        var carried = PipelineStatistics()
        /// When to open, retry, abandon and stop (the rules; this service owns the threads).
        var supervisor: PipelineSupervisor
    }

    /// A started (or ready) pipeline, and the timeline slot it starts at.
    private struct CurrentRun {
        let pipeline: LivePipeline
        let events: EventForwarder
        let firstSlot: Int
    }

    /// `opened`: a pipeline opened before serving (a new stream must fail before anything is
    /// served); nil for a recorded stream, which is served first and opened by `run()`.
    /// `opened`: with the slot `ServePlan.makePublisher(for:)` chose for it.
    public init(plan: ServePlan, publisher: StreamPublisher, opened: (OpenedPipeline, firstSlot: Int)?, logger: Logger) {
        self.plan = plan
        self.publisher = publisher
        self.logger = logger
        let watchdog = WatchdogRule(timeout: plan.stream.watchdogTimeout, segmentDuration: plan.configuration.segmentDuration)
        state = Mutex(State(current: opened.map { CurrentRun(pipeline: $0.0.pipeline, events: $0.0.events, firstSlot: $0.firstSlot) },
                            supervisor: PipelineSupervisor(watchdog: watchdog, running: opened != nil)))
    }

    /// The pipeline running now; nil while one is being opened.
    public var pipeline: LivePipeline? { state.withLock { $0.current?.pipeline } }

    /// Totals over every pipeline this service has run.
    public var statistics: PipelineStatistics {
        state.withLock { s in s.carried.adding(s.current?.pipeline.statistics ?? PipelineStatistics()) }
    }

    /// Whether stopping also ends the stream with EXT-X-ENDLIST (Ctrl-C) or leaves it open (SIGTERM).
    public var endStreamOnStop: Bool {
        get { endStream.load(ordering: .relaxed) }
        set { endStream.store(newValue, ordering: .relaxed) }
    }

    /// Ends the stream now, while the server goes on (the admin API's `end`).
    public func endNow() {
        endStreamOnStop = true
        publisher.prepareStop(endStream: true)
        let pipeline = state.withLock { s in
            s.supervisor.stop()
            return s.current?.pipeline
        }
        // Without a pipeline nothing would report `.finished`: close the playlists here.
        guard let pipeline else { return publisher.endStream() }
        pipeline.stop()
    }

    /// Stops the pipeline without ending the stream and waits until it has finished. Blocks:
    /// call on a thread of your own.
    public func stopForRemoval() {
        publisher.retire()
        publisher.prepareStop(endStream: false)
        let pipeline = state.withLock { s in
            s.supervisor.stop()
            return s.current?.pipeline
        }
        pipeline?.stop()
        _ = pipeline?.waitUntilFinished(seconds: 10)
    }

    public func run() async throws {
        publisher.startTicking()
        defer { publisher.stopTicking() }
        if let run = state.withLock({ $0.current }) {
            run.pipeline.start(atSegment: run.firstSlot, setEpoch: publisher.setTimeline?.epoch)
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
            s.supervisor.stop()
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

    /// Connects an opened pipeline to the publisher, makes it the current one and starts it at
    /// the slot the publisher chose (its timestamps continue the stream's timeline).
    private func installAndStart(_ opened: OpenedPipeline) {
        let first = publisher.beginRun(of: opened.pipeline)
        opened.events.connect(publisher)
        state.withLock { $0.current = CurrentRun(pipeline: opened.pipeline, events: opened.events, firstSlot: first) }
        opened.pipeline.start(atSegment: first, setEpoch: publisher.setTimeline?.epoch)
    }

    /// Opens the pipeline on a thread of its own (opening blocks), retrying as the supervisor
    /// says until it opens or the service stops, then starts it.
    private func openInBackground(reason: String) {
        guard state.withLock({ $0.supervisor.beginOpening() }) else { return }
        logger.notice("opening the pipeline", metadata: ["reason": "\(reason)"])
        let thread = Thread { [self] in
            let clock = publisher.registry.clock
            // Once the stream stops nothing is opened again (`beginOpening` refuses from then on).
            while state.withLock({ $0.supervisor.keepsOpening }) {
                do {
                    let opened = try plan.openPipeline(logger: logger)
                    let (attempts, install) = state.withLock { s in (s.supervisor.failedAttempts, s.supervisor.opened()) }
                    // Opened as the stream stopped: it was never started, and nothing is recorded from it.
                    guard install else { return }
                    installAndStart(opened)
                    logger.notice("pipeline started", metadata: ["attempt": "\(attempts + 1)", "first-slot": "\(state.withLock { $0.current?.firstSlot ?? 0 })"])
                    return
                } catch {
                    publisher.noteInputUnavailable()
                    let (wait, attempt) = state.withLock { s in (s.supervisor.openFailed(at: clock()), s.supervisor.failedAttempts) }
                    guard let wait else { return }
                    logger.critical("cannot start the pipeline; what is recorded stays served, retrying", metadata: [
                        "error": "\(error)", "attempt": "\(attempt)", "retry-in-seconds": "\(DecimalFormat.compact(wait))",
                    ])
                    let due = clock() + wait
                    while clock() < due && state.withLock({ $0.supervisor.keepsOpening }) { Thread.sleep(forTimeInterval: 0.05) }
                }
            }
        }
        thread.name = "sideline.open.\(plan.stream.name)"
        thread.start()
    }

    /// Every half second: a pipeline none of whose segments was accepted for longer than
    /// `stream.watchdog_timeout` (`WatchdogRule`) is abandoned and a new one opened. One whose
    /// segments all come too late for their slots counts as stuck too.
    private func watch() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(500))
            let progress = publisher.progress
            let now = publisher.registry.clock()
            let restart = state.withLock { s -> (CurrentRun, Double)? in
                guard let run = s.current,
                      let quiet = s.supervisor.watch(now: now, runStartedAt: progress.runStartedAt, lastAccepted: progress.lastAccepted,
                                                     finished: run.events.hasFinished) else { return nil }
                s.carried = s.carried.adding(run.pipeline.statistics)
                s.current = nil
                return (run, quiet)
            }
            if let (run, quiet) = restart { abandon(run, quietFor: quiet) }
        }
    }

    /// Cuts off a pipeline the watchdog gave up on and opens a new one once it has let go of
    /// its input.
    private func abandon(_ run: CurrentRun, quietFor seconds: Double) {
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
