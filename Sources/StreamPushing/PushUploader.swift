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

    /// What the status line shows.
    public struct Snapshot: Sendable, Equatable {
        /// Bits per second the last measured uploads went up at; nil before any.
        public var uploadBitRate: Int?
        public var plan: PushLadder.Plan
        /// Segments held (every rung), and the oldest of them.
        public var queued: Int
        public var oldest: PushQueue.Segment?
        /// Segments the server listed.
        public var acknowledged: Int
        public var lastFailure: String?
    }

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

    /// Every rung's segment of `slot` still to send, each followed by its playlist; then what
    /// the upload times say about the link.
    private func send(slot: Int) async throws(PushRefusal) {
        let variants = state.withLock { $0.queue.unsent(slot: slot, order: settings.rungs.map(\.name)) }
        var bytes = 0
        var seconds = 0.0
        for variant in variants {
            switch try await uploadSegment(variant, slot: slot) {
            case let .uploaded(size, took):
                bytes += size
                seconds += took
                try await sendPlaylist(of: variant)
            case .deferred:
                // Left for the backlog: whatever the order says goes next.
                return
            case .dropped:
                continue
            }
        }
        if bytes > 0 { adapt(bytes: bytes, seconds: seconds) }
    }

    enum SegmentOutcome {
        case uploaded(bytes: Int, seconds: Double)
        case deferred
        case dropped
    }

    private func uploadSegment(_ variant: String, slot: Int) async throws(PushRefusal) -> SegmentOutcome {
        guard let bytes = await store.queuedBytes(of: variant, slot: slot) else {
            // A store asked from a cancelled task may answer nothing: the file is still there.
            if Task.isCancelled { return .deferred }
            report(.segmentFileGone(variant: variant, slot: slot))
            state.withLock { $0.queue.drop(variant, slot: slot) }
            return .dropped
        }
        switch try await sendUntilSettled(.segment, path: "\(variant)/\(PushQueue.segmentName(slot: slot))", contentType: "video/mp2t", watchesRate: true, body: { bytes }) {
        case let .taken(seconds):
            state.withLock { $0.queue.uploaded(variant, slot: slot) }
            report(.segmentUploaded(variant: variant, slot: slot, seconds: seconds))
            return .uploaded(bytes: bytes.count, seconds: seconds)
        case let .ended(.drop(reason), _):
            report(.segmentDropped(variant: variant, slot: slot, reason: reason))
            state.withLock { $0.queue.drop(variant, slot: slot) }
            await store.removeQueued(variant, slots: [slot])
            return .dropped
        case .ended, .nothingToSend, .outOfTime:
            return .deferred
        }
    }

    /// The playlist that makes what went up visible, retried until it goes through; its
    /// segments then leave the queue.
    private func sendPlaylist(of variant: String) async throws(PushRefusal) {
        let resent = state.withLock { $0.resent.contains(variant) }
        var sent: MediaPlaylist?
        let settled = try await sendUntilSettled(.playlist, path: "\(variant)/index.m3u8", contentType: "application/vnd.apple.mpegurl", resent: resent) {
            // Asked again before each attempt: what may be listed grows meanwhile.
            sent = state.withLock { $0.queue.playlist(of: variant, targetDuration: settings.targetDuration) }
            return sent.map { Array($0.render().utf8) }
        }
        switch settled {
        case .taken:
            if let sent { await acknowledge(sent, of: variant) }
        case let .ended(.resendSegments, reason):
            report(.playlistRefused(variant: variant, reason: reason))
            state.withLock { s in
                s.resent.insert(variant)
                s.queue.resend(variant)
            }
        case .ended, .nothingToSend, .outOfTime:
            return
        }
    }

    /// The server listed what `playlist` names: those segments leave the queue (files first,
    /// then the record of how far the variant got).
    private func acknowledge(_ playlist: MediaPlaylist, of variant: String) async {
        let (slots, upTo) = state.withLock { s in
            s.resent.remove(variant)
            let slots = s.queue.acknowledged(playlist, of: variant)
            s.acknowledged += slots.count
            return (slots, s.queue.acknowledgedUpTo)
        }
        report(.acknowledged(variant: variant, slots: slots))
        await store.removeQueued(variant, slots: slots)
        do {
            try await store.recordAcknowledged(upTo)
        } catch {
            report(.queueStateNotSaved(error: "\(error)"))
        }
    }

    /// What the upload times say about the link: the encoders' rates and the rungs sent.
    private func adapt(bytes: Int, seconds: Double) {
        let measured = seconds > 0 ? Int(Double(bytes) * 8 / seconds) : nil
        let change = state.withLock { s -> PushPlanChange? in
            if let measured { s.uploadBitRate = measured }
            let before = s.follower.plan
            return s.follower.measured(bytes: bytes, seconds: seconds).map { PushPlanChange(plan: $0, measured: measured, before: before) }
        }
        if let change { planChanged(change) }
    }

    func planChanged(_ change: PushPlanChange) {
        report(.planChanged(change))
        // The master may have to change.
        wake()
    }

    /// Sends the master when the rungs sent changed (and every one's format is known): the
    /// server fills a rung the master leaves out until it is listed again.
    private func sendMasterIfChanged() async throws(PushRefusal) {
        let (sent, formats, current) = state.withLock { ($0.follower.plan.sent.map(\.name), $0.formats, $0.masterSent) }
        guard sent != current, let text = PushMaster.render(sent: sent, formats: formats, peakBitRates: settings.peakBitRates) else { return }
        if case .taken = try await sendUntilSettled(.document, path: "master.m3u8", contentType: "application/vnd.apple.mpegurl", body: { Array(text.utf8) }) {
            state.withLock { $0.masterSent = sent }
        }
    }

    // MARK: Waiting for work

    /// Wakes the run loop (or its next wait) for something new: a segment, a format, a plan,
    /// a stop.
    func wake() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let waiter = s.waiter else {
                s.woken = true
                return nil
            }
            s.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Waits until something new may be sent, or the drain deadline passes. No polling: every
    /// change that can give the run loop work wakes it.
    private func waitForWork() async {
        let deadline = state.withLock { $0.drainDeadline }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in await waitForWake() }
            if let deadline {
                group.addTask { [self] in try? await sleep(max(0, deadline - clock())) }
            }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForWake() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.woken || Task.isCancelled {
                        s.woken = false
                        return true
                    }
                    s.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume()
        }
    }
}
