import Foundation
import HLSPlaylist
import Logging
import MediaPipeline
import SidelineCore
import StreamPushing
import Synchronization

/// `sideline push` at work, between a pipeline and a server's ingest: the wiring of
/// `PushUploader` (StreamPushing), which makes every decision (what goes up next, retries,
/// the upload watchdog, the bit rates and rungs), to the world: the pipeline's events in, the
/// queue directory as its store, `IngestClient` as its transport, the monotonic clock and
/// `Task.sleep`, and its reports out to the encoders' bit rates and the log (`PushEventLog`).
public final class PushSession: Sendable {
    public typealias Refused = PushRefusal

    public let settings: Settings
    public let client: IngestClient
    public let uploader: PushUploader
    private let events: PushEventLog
    private let logger: Logger

    /// `queue`: what the directory held at start (`PushQueueDirectory.open`).
    public init(settings: Settings, client: IngestClient, directory: PushQueueDirectory, queue: PushQueue, bitRates: BitRateControl, timings: SegmentTimings?,
                logger: Logger, clock: @escaping @Sendable () -> Double = MonotonicClock.seconds) {
        self.settings = settings
        self.client = client
        self.logger = logger
        let events = PushEventLog(ladder: settings.ladder, bitRates: bitRates, timings: timings, logger: logger)
        self.events = events
        uploader = PushUploader(settings: settings.uploader, queue: queue, transport: client, store: directory, clock: clock,
                                sleep: MonotonicClock.sleep, report: events.handle)
    }

    /// Capture-to-listed latencies of every rung's segments, of the best rung's alone (which
    /// goes up first in every slot), and how long each segment upload took that went through.
    public var latency: LatencyRecorder { events.latency }
    public var bestRungLatency: LatencyRecorder { events.bestRungLatency }
    public var uploadTimes: LatencyRecorder { events.uploadTimes }

    public var status: Status {
        let snapshot = uploader.snapshot
        return Status(uploadBitRate: snapshot.uploadBitRate, plan: snapshot.plan, queued: snapshot.queued,
                      oldestUnsent: snapshot.oldest.map { Date().timeIntervalSince($0.programDateTime) }, latency: events.lastLatency.withLock { $0 },
                      acknowledged: snapshot.acknowledged, lastFailure: snapshot.lastFailure)
    }

    /// The newest slot the queue holds (a restarted pipeline starts after it).
    public var newestQueued: Int? { uploader.newestQueued }

    /// How long a stopped push goes on sending what is queued.
    public var drainSeconds: Double { settings.uploader.drainSeconds }

    /// Asks the uploader to finish within `seconds`; what is left stays queued for the next run.
    public func drain(for seconds: Double) { uploader.drain(for: seconds) }

    /// Sends until the pipeline has finished and the queue is empty, or the drain deadline
    /// passes. Throws when the server refuses what retrying cannot fix.
    public func run() async throws(Refused) { try await uploader.run() }

    // MARK: The pipeline's side (its threads)

    public func handle(_ event: PipelineEvent) {
        switch event {
        case let .segment(variant, segment):
            let held = PushQueue.Segment(slot: segment.index, duration: segment.duration, programDateTime: segment.programDateTime, bytes: segment.bytes.count)
            uploader.segmentFinished(segment.bytes, as: held, of: variant)
        case let .variantFormat(variant, format):
            uploader.formatKnown(format, of: variant)
        case let .variantFailed(variant, reason):
            logger.error("a rung's encoder failed; the server fills its slots until it recovers", metadata: ["variant": "\(variant)", "reason": "\(reason)"])
        case .effort, .progress, .segmentLoad:
            break // the pipeline logs every change itself; the server judges a pushed stream by its segments
        case .part:
            break // a pushed stream sends whole segments (its configuration asks for no parts)
        case let .inputLost(reason, _, first):
            logger.error("input lost; the slate is pushed while reconnecting", metadata: ["reason": "\(reason)", "first-slate-segment": "\(first)"])
        case let .inputRestored(_, first):
            logger.notice("input back", metadata: ["first-live-segment": "\(first)"])
        case let .inputFailed(error):
            logger.error("input failed; push sends what it has and ends", metadata: ["error": "\(error)"])
        case .finished:
            uploader.encoderFinished()
        }
    }
}
