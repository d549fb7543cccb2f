import Foundation
import HLSPlaylist
import Logging
import MediaPipeline
import NIOPosix
import SidelineConfig
import SidelineCore
import StreamPushing
import Synchronization

/// `sideline push` at work, between a pipeline and a server's ingest. What the pipeline
/// finishes (on its threads) goes into the queue on disk, for the rungs the uplink carries
/// now; one uploader (`run`) sends it in the order `push.backlog` says, each segment followed
/// by its variant's playlist, and applies after every slot what the rate follower makes of
/// the upload times: the encoders' bit rates, and the rungs sent (announced by a new master).
/// Every decision is a pure type of StreamPushing (`PushQueue`, `PushRateFollower`,
/// `UploadRetry`, `PushMaster`); this class carries them out.
public final class PushSession: Sendable {
    public struct Settings: Sendable {
        /// Best first: the config's ladder.
        public var ladder: [Rung]
        public var segmentDuration: Double
        public var targetDuration: Int
        /// The AAC bit rate every rung carries (0 without audio).
        public var audioBitRate: Int
        public var rule: UploadBitRate
        /// `push.min_bitrate` and `push.max_bitrate` (the ladder's total when not set).
        public var minimum: Int
        public var maximum: Int
        public var backlog: PushBacklog
        /// Title, description and keywords to send before anything else; nil: none given.
        public var metadata: StreamMetadata?

        /// From the config (`push`, `video`, `audio`, `segment_duration`) for `stream`.
        public init(configuration: SidelineConfiguration, stream: StreamSettings, targetDuration: Int, hasAudio: Bool, metadata: StreamMetadata?) {
            ladder = stream.video.ladder
            segmentDuration = configuration.segmentDuration
            self.targetDuration = targetDuration
            audioBitRate = hasAudio ? configuration.audio.bitrate.bitsPerSecond : 0
            rule = UploadBitRate(ratio: configuration.push.ratio)
            minimum = configuration.push.minBitrate.bitsPerSecond
            // Rungs never go above their configured rates, so more than the ladder's total is never used.
            let ladderTotal = ladder.reduce(0) { $0 + $1.bitrate.bitsPerSecond }
            maximum = min(configuration.push.maxBitrate?.bitsPerSecond ?? ladderTotal, ladderTotal)
            backlog = configuration.push.backlog
            self.metadata = metadata
        }
    }

    /// Why push ended without sending everything: a refusal retrying cannot fix.
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
    }

    /// What the status line shows.
    public struct Status: Sendable {
        /// Bits per second the last measured uploads went up at; nil before any.
        public var uploadBitRate: Int?
        public var plan: PushLadder.Plan
        /// Segments held (every rung), and how old the oldest is.
        public var queued: Int
        public var oldestUnsent: Double?
        /// Capture of a segment's last frame to the server listing it, the last one measured.
        public var latency: Double?
        public var acknowledged: Int
        public var lastFailure: String?

        public init(uploadBitRate: Int?, plan: PushLadder.Plan, queued: Int, oldestUnsent: Double?, latency: Double?, acknowledged: Int, lastFailure: String?) {
            self.uploadBitRate = uploadBitRate
            self.plan = plan
            self.queued = queued
            self.oldestUnsent = oldestUnsent
            self.latency = latency
            self.acknowledged = acknowledged
            self.lastFailure = lastFailure
        }
    }

    private struct State {
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
        var lastLatency: Double?
        var acknowledged = 0
        var lastFailure: String?
    }

    public let settings: Settings
    public let client: IngestClient
    private let directory: PushQueueDirectory
    private let bitRates: BitRateControl
    private let timings: SegmentTimings?
    private let logger: Logger
    private let state: Mutex<State>
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    /// Capture-to-listed latencies of every rung's segments (as `serve` measures publish
    /// latency: from the input reading a segment's last frame to the server listing it).
    public let latency = LatencyRecorder()
    /// The same for the best rung alone, which goes up first in every slot.
    public let bestRungLatency = LatencyRecorder()
    /// How long each segment upload took that went through.
    public let uploadTimes = LatencyRecorder()
    private let clock: @Sendable () -> Double

    /// `queue`: what the directory held at start (`PushQueueDirectory.open`).
    public init(settings: Settings, client: IngestClient, directory: PushQueueDirectory, queue: PushQueue, bitRates: BitRateControl, timings: SegmentTimings?,
                logger: Logger, clock: @escaping @Sendable () -> Double = MonotonicClock.seconds) {
        self.settings = settings
        self.client = client
        self.directory = directory
        self.bitRates = bitRates
        self.timings = timings
        self.logger = logger
        self.clock = clock
        let ladder = PushLadder(rungs: settings.ladder.map { .init(name: $0.name, bitRate: $0.bitrate.bitsPerSecond) }, audioBitRate: settings.audioBitRate,
                                minimum: settings.minimum, maximum: settings.maximum)
        state = Mutex(State(queue: queue, follower: PushRateFollower(ladder: ladder, rule: settings.rule)))
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public var status: Status {
        state.withLock { s in
            Status(uploadBitRate: s.uploadBitRate, plan: s.follower.plan, queued: s.queue.count,
                   oldestUnsent: s.queue.oldest.map { Date().timeIntervalSince($0.programDateTime) }, latency: s.lastLatency,
                   acknowledged: s.acknowledged, lastFailure: s.lastFailure)
        }
    }

    /// The newest slot the queue holds (a restarted pipeline starts after it).
    public var newestQueued: Int? { state.withLock { $0.queue.newest } }

    // MARK: The pipeline's side (its threads)

    public func handle(_ event: PipelineEvent) {
        switch event {
        case let .segment(variant, segment):
            keep(segment, of: variant)
        case let .variantFormat(variant, format):
            state.withLock { $0.formats[variant] = format }
            wake.yield()
        case let .variantFailed(variant, reason):
            logger.error("a rung's encoder failed; the server fills its slots until it recovers", metadata: ["variant": "\(variant)", "reason": "\(reason)"])
        case .effort:
            break // the pipeline logs every change itself
        case let .inputLost(reason, _, first):
            logger.error("input lost; the slate is pushed while reconnecting", metadata: ["reason": "\(reason)", "first-slate-segment": "\(first)"])
        case let .inputRestored(_, first):
            logger.notice("input back", metadata: ["first-live-segment": "\(first)"])
        case let .inputFailed(error):
            logger.error("input failed; push sends what it has and ends", metadata: ["error": "\(error)"])
        case .finished:
            state.withLock { $0.encoderFinished = true }
            wake.yield()
        }
    }

    /// A finished segment of a rung the uplink carries goes into the queue on disk; one of a
    /// rung dropped for now is let go (the server fills its slot from a sibling).
    private func keep(_ segment: EncodedSegment, of variant: String) {
        guard state.withLock({ $0.follower.plan.bitRate(of: variant) != nil }) else { return }
        let held = PushQueue.Segment(slot: segment.index, duration: segment.duration, programDateTime: segment.programDateTime, bytes: segment.bytes.count)
        do {
            try directory.keep(segment.bytes, as: held, of: variant)
        } catch {
            // Not on disk, not queued: the server fills the slot. Said once per failure.
            logger.error("a segment could not be kept in the push queue; its slot will be filled on the server", metadata: [
                "variant": "\(variant)", "slot": "\(segment.index)", "error": "\(error)",
            ])
            return
        }
        state.withLock { $0.queue.add(held, of: variant) }
        wake.yield()
    }

    // MARK: The uploader

    /// How long a stopped push goes on sending what is queued: a couple of segments' uploads.
    public var drainSeconds: Double { max(5, settings.segmentDuration * 2) }

    /// Asks the uploader to finish: it goes on until the queue is empty or `seconds` have
    /// passed; what is left stays in the queue for the next run.
    public func drain(for seconds: Double) {
        let deadline = clock() + seconds
        state.withLock { $0.drainDeadline = $0.drainDeadline.map { min($0, deadline) } ?? deadline }
        wake.yield()
    }

    private var pastDeadline: Bool { state.withLock { s in s.drainDeadline.map { clock() >= $0 } ?? false } }

    /// Sends until the pipeline has finished and the queue is empty, or the drain deadline
    /// passes. Throws when the server refuses what retrying cannot fix.
    public func run() async throws(Refused) {
        if let metadata = settings.metadata { try await sendMetadata(metadata) }
        while !pastDeadline {
            try await sendMasterIfChanged()
            let (next, finished, empty) = state.withLock { s in (s.queue.nextSlot(backlog: settings.backlog), s.encoderFinished, s.queue.isEmpty) }
            guard let slot = next else {
                if finished && empty { return }
                await waitForWork(seconds: 0.5)
                continue
            }
            try await send(slot: slot)
        }
    }

    /// Waits until something new may be sent (a segment, a format, a stop) or `seconds` pass.
    private func waitForWork(seconds: Double) async {
        let wakes = self.wakes
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var iterator = wakes.makeAsyncIterator()
                _ = await iterator.next()
            }
            group.addTask { try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000))) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Every rung's segment of `slot` still to send, each followed by its playlist; then what
    /// the upload times say about the link.
    private func send(slot: Int) async throws(Refused) {
        let variants = state.withLock { $0.queue.unsent(slot: slot, order: settings.ladder.map(\.name)) }
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

    private func uploadSegment(_ variant: String, slot: Int) async throws(Refused) -> SegmentOutcome {
        let directory = self.directory
        guard let bytes = await blocking({ directory.bytes(of: variant, slot: slot) }) ?? nil else {
            logger.error("a queued segment's file is gone; the server fills its slot", metadata: ["variant": "\(variant)", "slot": "\(slot)"])
            state.withLock { $0.queue.drop(variant, slot: slot) }
            return .dropped
        }
        var backoff = Backoff.uploadRetry
        let first = clock()
        while true {
            let answer = await watchingUpload(of: bytes) { [client, uploadTimeout] in
                await client.put("\(variant)/\(PushQueue.segmentName(slot: slot))", body: bytes, contentType: "video/mp2t", timeout: uploadTimeout)
            }
            if answer.succeeded {
                state.withLock { $0.queue.uploaded(variant, slot: slot) }
                uploadTimes.record(answer.seconds)
                noteRecovered()
                return .uploaded(bytes: bytes.count, seconds: answer.seconds)
            }
            noteFailure("segment \(variant)/\(PushQueue.segmentName(slot: slot))", answer)
            switch UploadRetry.decide(.segment, status: answer.status, reason: answer.reason, firstAttempt: first, now: clock(),
                                      segmentDuration: settings.segmentDuration, backoff: &backoff) {
            case let .retry(after):
                if pastDeadline { return .deferred }
                await pause(after)
            case .deferToBacklog, .resendSegments:
                return .deferred
            case let .drop(reason):
                logger.error("\(reason); its slot is filled on the server", metadata: ["variant": "\(variant)", "slot": "\(slot)"])
                state.withLock { $0.queue.drop(variant, slot: slot) }
                await blocking { directory.remove(variant, slot: slot) }
                return .dropped
            case let .stop(message):
                throw Refused(description: message)
            }
        }
    }

    /// Runs a segment's upload while watching how long it takes: one that is not through after
    /// longer than the plan allows steps the plan down at once (`PushRateFollower.stillUploading`).
    private func watchingUpload(of bytes: [UInt8], _ upload: @escaping @Sendable () async -> IngestClient.Answer) async -> IngestClient.Answer {
        await withTaskGroup(of: IngestClient.Answer?.self) { group in
            group.addTask { await upload() }
            group.addTask { [self] in
                let started = clock()
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    if Task.isCancelled { break }
                    let changed = state.withLock { $0.follower.stillUploading(bytes: bytes.count, seconds: clock() - started) }
                    if let plan = changed { apply(plan, measured: nil) }
                }
                return nil
            }
            var answer: IngestClient.Answer?
            while let result = await group.next() {
                if let result {
                    answer = result
                    group.cancelAll()
                }
            }
            return answer!
        }
    }

    /// The playlist that makes what went up visible, retried until it goes through; its
    /// segments then leave the queue.
    private func sendPlaylist(of variant: String) async throws(Refused) {
        var backoff = Backoff.uploadRetry
        let first = clock()
        while true {
            guard let playlist = state.withLock({ $0.queue.playlist(of: variant, targetDuration: settings.targetDuration) }) else { return }
            let answer = await client.put("\(variant)/index.m3u8", body: Array(playlist.render().utf8), contentType: "application/vnd.apple.mpegurl", timeout: uploadTimeout)
            if answer.succeeded {
                await acknowledge(playlist, of: variant)
                noteRecovered()
                return
            }
            noteFailure("playlist \(variant)/index.m3u8", answer)
            let resent = state.withLock { $0.resent.contains(variant) }
            switch UploadRetry.decide(.playlist, status: answer.status, reason: answer.reason, firstAttempt: first, now: clock(),
                                      segmentDuration: settings.segmentDuration, resent: resent, backoff: &backoff) {
            case let .retry(after):
                if pastDeadline { return }
                await pause(after)
            case .resendSegments:
                logger.warning("the server refused a playlist; its segments are sent again", metadata: ["variant": "\(variant)", "reason": "\(answer.reason)"])
                state.withLock { s in
                    s.resent.insert(variant)
                    s.queue.resend(variant)
                }
                return
            case .deferToBacklog, .drop:
                await pause(backoff.failed(at: clock()))
            case let .stop(message):
                throw Refused(description: message)
            }
        }
    }

    /// The server listed what `playlist` names: those segments leave the queue (files first,
    /// then the record of how far the variant got).
    private func acknowledge(_ playlist: MediaPlaylist, of variant: String) async {
        let now = ContinuousClock.now
        let (slots, upTo) = state.withLock { s in
            s.resent.remove(variant)
            let slots = s.queue.acknowledged(playlist, of: variant)
            s.acknowledged += slots.count
            return (slots, s.queue.acknowledgedUpTo)
        }
        if let timings {
            for slot in slots {
                guard let completed = timings.inputCompletion(segment: slot) else { continue }
                let seconds = completed.duration(to: now).inSeconds
                latency.record(seconds)
                if variant == settings.ladder.first?.name {
                    bestRungLatency.record(seconds)
                    state.withLock { $0.lastLatency = seconds }
                }
            }
        }
        let directory = self.directory
        let logger = self.logger
        await blocking {
            for slot in slots { directory.remove(variant, slot: slot) }
            do {
                try directory.saveAcknowledged(upTo)
            } catch {
                logger.error("the push queue's state could not be written; a restart may send acknowledged segments again (the server lists each once)",
                             metadata: ["error": "\(error)"])
            }
        }
    }

    /// What the upload times say about the link: the encoders' rates and the rungs sent.
    private func adapt(bytes: Int, seconds: Double) {
        let measured = seconds > 0 ? Int(Double(bytes * 8) / seconds) : nil
        let (changed, before) = state.withLock { s -> (PushLadder.Plan?, PushLadder.Plan) in
            if let measured { s.uploadBitRate = measured }
            let before = s.follower.plan
            return (s.follower.measured(bytes: bytes, seconds: seconds), before)
        }
        guard let plan = changed else { return }
        apply(plan, measured: measured, before: before)
    }

    /// The encoders take the plan's rates from their next frame; the log says when it matters
    /// (every measurement moves the rates a little).
    private func apply(_ plan: PushLadder.Plan, measured: Int?, before: PushLadder.Plan? = nil) {
        for rung in settings.ladder {
            let rate = plan.bitRate(of: rung.name)
            bitRates.set(rate == rung.bitrate.bitsPerSecond ? nil : rate, for: rung.name)
        }
        let step = before.map { Double(plan.videoBitRate) / Double(max(1, $0.videoBitRate)) } ?? 0
        let level: Logger.Level = before == nil || plan.dropped != before!.dropped || step < 0.8 || step > 1.25 ? .notice : .debug
        logger.log(level: level, measured == nil ? "uplink slower than the plan: an upload is taking too long; video bit rates step down" : "uplink changed: video bit rates follow", metadata: [
            "measured-bits-per-second": "\(measured.map(String.init) ?? "-")",
            "rungs": "\(plan.sent.map { "\($0.name)=\($0.bitRate / 1000)k" }.joined(separator: ","))",
            "dropped": "\(plan.dropped.joined(separator: ","))",
        ])
        wake.yield()
    }

    // MARK: Master and metadata

    /// Sends the master when the rungs sent changed (and every one's format is known): the
    /// server fills a rung the master leaves out until it is listed again.
    private func sendMasterIfChanged() async throws(Refused) {
        let (sent, formats, current) = state.withLock { ($0.follower.plan.sent.map(\.name), $0.formats, $0.masterSent) }
        guard sent != current else { return }
        let peaks = Dictionary(uniqueKeysWithValues: settings.ladder.map { ($0.name, $0.maxrate.bitsPerSecond + settings.audioBitRate) })
        guard let text = PushMaster.render(sent: sent, formats: formats, peakBitRates: peaks) else { return }
        if try await sendUntilTaken("master.m3u8", body: Array(text.utf8), contentType: "application/vnd.apple.mpegurl") {
            state.withLock { $0.masterSent = sent }
        }
    }

    private func sendMetadata(_ metadata: StreamMetadata) async throws(Refused) {
        // Three strings always encode.
        let body = Array((try? JSONEncoder().encode(metadata)) ?? Data())
        _ = try await sendUntilTaken("metadata", body: body, contentType: "application/json")
    }

    /// PUTs a small document until the server takes it (as a playlist: retried, never given
    /// up, refusals that retrying cannot fix stop push). False when the drain deadline passed.
    private func sendUntilTaken(_ path: String, body: [UInt8], contentType: String) async throws(Refused) -> Bool {
        var backoff = Backoff.uploadRetry
        let first = clock()
        while !pastDeadline {
            let answer = await client.put(path, body: body, contentType: contentType, timeout: uploadTimeout)
            if answer.succeeded {
                noteRecovered()
                return true
            }
            noteFailure(path, answer)
            switch UploadRetry.decide(.document, status: answer.status, reason: answer.reason, firstAttempt: first, now: clock(),
                                      segmentDuration: settings.segmentDuration, backoff: &backoff) {
            case let .retry(after): await pause(after)
            case let .stop(message): throw Refused(description: message)
            case .deferToBacklog, .drop, .resendSegments: await pause(backoff.failed(at: clock()))
            }
        }
        return false
    }

    // MARK: Helpers

    /// A request may take this long: a segment on a slow link takes most of a segment duration.
    private var uploadTimeout: Double { max(10, settings.segmentDuration * 4) }

    private func pause(_ seconds: Double) async {
        try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
    }

    /// The first failure after a success is logged; the rest show on the status line.
    private func noteFailure(_ what: String, _ answer: IngestClient.Answer) {
        let first = state.withLock { s in
            defer { s.lastFailure = "\(what): \(answer.status.map(String.init) ?? "no answer") \(answer.reason.prefix(160))" }
            return s.lastFailure == nil
        }
        if first {
            logger.warning("upload failed; retrying (the segments wait in the queue)", metadata: [
                "upload": "\(what)", "status": "\(answer.status.map(String.init) ?? "none")", "reason": "\(answer.reason.prefix(300))",
            ])
        }
    }

    private func noteRecovered() {
        let was = state.withLock { s in
            defer { s.lastFailure = nil }
            return s.lastFailure
        }
        if was != nil { logger.notice("uploads go through again") }
    }

    /// File work off Swift's cooperative pool, on NIO's blocking-I/O threads.
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        try? await NIOThreadPool.singleton.runIfActive(body)
    }
}
