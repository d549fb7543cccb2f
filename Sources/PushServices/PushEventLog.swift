import Logging
import MediaPipeline
import SidelineCore
import StreamPushing
import Synchronization

/// What the uploader reports, carried out: its plans into the encoders' bit rates, its
/// acknowledgements into capture-to-listed latencies, everything worth it into the log, in
/// the words operators and the end-to-end tests read.
final class PushEventLog: Sendable {
    private let ladder: [Rung]
    private let bitRates: BitRateControl
    private let timings: SegmentTimings?
    private let logger: Logger
    let latency = LatencyRecorder()
    let bestRungLatency = LatencyRecorder()
    let uploadTimes = LatencyRecorder()
    /// The best rung's last capture-to-listed latency, for the status line.
    let lastLatency = Mutex<Double?>(nil)

    init(ladder: [Rung], bitRates: BitRateControl, timings: SegmentTimings?, logger: Logger) {
        self.ladder = ladder
        self.bitRates = bitRates
        self.timings = timings
        self.logger = logger
    }

    func handle(_ event: PushEvent) {
        switch event {
        case let .planChanged(change):
            apply(change)
        case let .uploadFailing(upload, status, reason):
            logger.warning("upload failed; retrying (the segments wait in the queue)", metadata: [
                "upload": "\(upload)", "status": "\(status.map(String.init) ?? "none")", "reason": "\(reason)",
            ])
        case .uploadsRecovered:
            logger.notice("uploads go through again")
        case let .segmentUploaded(_, _, seconds):
            uploadTimes.record(seconds)
        case let .acknowledged(variant, slots):
            measureLatency(variant: variant, slots: slots)
        case let .segmentNotKept(variant, slot, error):
            // Not on disk, not queued: the server fills the slot. Said once per failure.
            logger.error("a segment could not be kept in the push queue; its slot will be filled on the server", metadata: [
                "variant": "\(variant)", "slot": "\(slot)", "error": "\(error)",
            ])
        case let .segmentFileGone(variant, slot):
            logger.error("a queued segment's file is gone; the server fills its slot", metadata: ["variant": "\(variant)", "slot": "\(slot)"])
        case let .segmentDropped(variant, slot, reason):
            logger.error("\(reason); its slot is filled on the server", metadata: ["variant": "\(variant)", "slot": "\(slot)"])
        case let .playlistRefused(variant, reason):
            logger.warning("the server refused a playlist; its segments are sent again", metadata: ["variant": "\(variant)", "reason": "\(reason)"])
        case let .queueStateNotSaved(error):
            logger.error("the push queue's state could not be written; a restart may send acknowledged segments again (the server lists each once)",
                         metadata: ["error": "\(error)"])
        }
    }

    /// The encoders take the plan's rates from their next frame (nil: the configured rate).
    private func apply(_ change: PushPlanChange) {
        for rung in ladder {
            let rate = change.plan.bitRate(of: rung.name)
            bitRates.set(rate == rung.bitrate.bitsPerSecond ? nil : rate, for: rung.name)
        }
        let message: Logger.Message = change.measured == nil
            ? "uplink slower than the plan: an upload is taking too long; video bit rates step down"
            : "uplink changed: video bit rates follow"
        logger.log(level: change.isNotable ? .notice : .debug, message, metadata: [
            "measured-bits-per-second": "\(change.measured.map(String.init) ?? "-")",
            "rungs": "\(change.plan.sent.map { "\($0.name)=\($0.bitRate / 1000)k" }.joined(separator: ","))",
            "dropped": "\(change.plan.dropped.joined(separator: ","))",
        ])
    }

    /// As `serve` measures publish latency: from the input reading a segment's last frame to
    /// the server listing it.
    private func measureLatency(variant: String, slots: [Int]) {
        guard let timings else { return }
        let now = ContinuousClock.now
        for slot in slots {
            guard let completed = timings.inputCompletion(segment: slot) else { continue }
            let seconds = completed.duration(to: now).inSeconds
            latency.record(seconds)
            if variant == ladder.first?.name {
                bestRungLatency.record(seconds)
                lastLatency.withLock { $0 = seconds }
            }
        }
    }
}
