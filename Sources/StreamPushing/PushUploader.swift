import Foundation
import HLSPlaylist
import SidelineCore
import Synchronization

/// `sideline push`'s uploader, every decision of it, in the shape of `MirrorFollower`: what
/// the pipeline finished goes into the queue (for the rungs the uplink carries now); one
/// upload at a time goes up in the order `push.backlog` says, each segment followed by its
/// variant's playlist, the master when the rungs sent change, the metadata first; after every
/// slot, and while an upload drags, the rate follower's plan goes to the encoders. Failed
/// uploads go through one retry loop (`UploadRetry`, `Backoff.uploadRetry`).
///
/// The network (`IngestUploading`), the queue's files (`PushQueueStore`), time and sleeping
/// are all injected, and what happens is reported as `PushEvent`s for PushServices to log, so
/// cuts, steps, stalls and refusals are tested in milliseconds.
public final class PushUploader: Sendable {
    public let settings: Settings
    let transport: any IngestUploading
    let store: any PushQueueStore
    let clock: @Sendable () -> Double
    let sleep: @Sendable (Double) async throws -> Void
    let report: @Sendable (PushEvent) -> Void
    let state: Mutex<State>

    struct State {
        var queue: PushQueue
        var follower: PushRateFollower
        var formats: [String: VariantFormat] = [:]
        /// The rungs the last master the server took lists.
        var masterSent: [String]?
        var encoderFinished = false
        /// When stopping, the time after which nothing more is tried.
        var drainDeadline: Double?
        /// A variant's playlist was refused and its segments are being sent again.
        var resent: Set<String> = []
        var uploadBitRate: Int?
        var acknowledged = 0
        var lastFailure: String?
        /// The run loop, while it waits for work.
        var waiter: CheckedContinuation<Void, Never>?
        /// Work came while the run loop was busy: its next wait returns at once.
        var woken = false
    }

    /// `queue`: what the store held at start. `sleep`: waits the given seconds (or throws
    /// `CancellationError`); tests run it on simulated time.
    public init(settings: Settings, queue: PushQueue, transport: any IngestUploading, store: any PushQueueStore,
                clock: @escaping @Sendable () -> Double, sleep: @escaping @Sendable (Double) async throws -> Void,
                report: @escaping @Sendable (PushEvent) -> Void) {
        self.settings = settings
        self.transport = transport
        self.store = store
        self.clock = clock
        self.sleep = sleep
        self.report = report
        state = Mutex(State(queue: queue, follower: PushRateFollower(ladder: settings.ladder, rule: settings.rule)))
    }

    /// What the status line shows (`PushUploadSnapshot`).
    public typealias Snapshot = PushUploadSnapshot

    public var snapshot: Snapshot {
        state.withLock { s in
            Snapshot(uploadBitRate: s.uploadBitRate, plan: s.follower.plan, queued: s.queue.count, oldest: s.queue.oldest,
                     acknowledged: s.acknowledged, lastFailure: s.lastFailure)
        }
    }

    /// The newest slot the queue holds (a restarted pipeline starts after it).
    public var newestQueued: Int? { state.withLock { $0.queue.newest } }

    // MARK: What the pipeline gives (its threads)

    /// A finished segment of a rung the uplink carries goes into the store and the queue; one
    /// of a rung dropped for now is let go (the server fills its slot from a sibling).
    public func segmentFinished(_ bytes: [UInt8], as segment: PushQueue.Segment, of variant: String) {
        guard state.withLock({ $0.follower.plan.bitRate(of: variant) != nil }) else { return }
        do {
            try store.keep(bytes, as: segment, of: variant)
        } catch {
            // Not kept, not queued: the server fills the slot.
            report(.segmentNotKept(variant: variant, slot: segment.slot, error: "\(error)"))
            return
        }
        state.withLock { $0.queue.add(segment, of: variant) }
        wake()
    }

    /// A rung's encoder told what it makes (CODECS, RESOLUTION): the master can name it.
    public func formatKnown(_ format: VariantFormat, of variant: String) {
        state.withLock { $0.formats[variant] = format }
        wake()
    }

    public func encoderFinished() {
        state.withLock { $0.encoderFinished = true }
        wake()
    }

    /// Asks the uploader to finish: it goes on until the queue is empty or `seconds` have
    /// passed; what is left stays in the queue for the next run.
    public func drain(for seconds: Double) {
        let deadline = clock() + seconds
        state.withLock { $0.drainDeadline = $0.drainDeadline.map { min($0, deadline) } ?? deadline }
        wake()
    }

    var pastDeadline: Bool { state.withLock { s in s.drainDeadline.map { clock() >= $0 } ?? false } }

    // MARK: The run

    /// Sends until the pipeline has finished and the queue is empty, the drain deadline
    /// passes, or the task is cancelled. Throws when the server refuses what retrying cannot fix.
    public func run() async throws(PushRefusal) {
        if let metadata = settings.metadata {
            // Three strings always encode.
            let body = Array((try? JSONEncoder().encode(metadata)) ?? Data())
            _ = try await sendUntilSettled(.document, path: "metadata", contentType: "application/json") { body }
        }
        while !pastDeadline && !Task.isCancelled {
            try await sendMasterIfChanged()
            let (next, finished, empty) = state.withLock { s in (s.queue.nextSlot(backlog: settings.backlog), s.encoderFinished, s.queue.isEmpty) }
            guard let slot = next else {
                if finished && empty { return }
                await waitForWork()
                continue
            }
            try await send(slot: slot)
        }
    }
}
