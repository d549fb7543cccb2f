import CFFmpeg
import EncoderEffort
import Foundation
import HLSPlaylist
import Logging
import PipelineCore
import SidelineCore
import Synchronization

/// What the input thread sends to a variant's thread.
enum VariantMessage: Sendable {
    /// A decoded frame to become output frame `index`, captured at `captured`.
    case video(OwnedFrame, index: Int64, captured: Date)
    /// An encoded AAC packet (shared by every variant; each gets its own reference).
    case audio(OwnedPacket)
    /// No more input: drain the encoder and emit the last segment.
    case end
}

/// Scales, encodes and segments one variant on a thread of its own, fed by a bounded queue,
/// so a slow variant never holds up decoding for the others.
///
/// An encoder that fails is reported (the variant's playlist gets EXT-X-GAP entries) and set
/// up again with backoff, while what arrives meanwhile is dropped so the input never waits for
/// it; the new encoder starts on the next segment boundary, so every segment still begins with
/// an IDR at the same media time as its siblings'.
final class VariantWorker {
    let spec: Rung
    let queue: BoundedQueue<VariantMessage>
    /// Where IDRs are forced: every segment's first frame, and every part's on a pair
    /// (`PipelineConfiguration.keyframes`). Its segment and part grids are this worker's, so
    /// the IDRs and the cuts never disagree.
    private let keyframes: KeyframeSchedule
    private var clock: SegmentClock { keyframes.segments }
    /// Where parts fall (Low-Latency HLS); nil: whole segments only.
    private var parts: PartClock? { keyframes.parts }
    /// The output index of the frame encoded last, for `keyframes` (nil before the first).
    private var lastEncoded: Int64?
    private let scaler: VideoScaler
    private let audio: AudioEncoder?
    private var encoder: VideoEncoder
    private var muxer: SegmentMuxer
    private var reportedFormat = false
    /// Capture times of segment-starting frames, until their packet leaves the encoder.
    private var captureTimes: [Int64: Date] = [:]
    private let onEvent: @Sendable (PipelineEvent) -> Void
    private let onEncoded: @Sendable (_ mediaTime: Double, _ segmentBytes: Int?) -> Void
    private let logger: Logger
    /// Frames the input thread left out because this variant's queue was full. Written by the
    /// input thread, read by this variant's own (the effort rule's measurement).
    let droppedFrames = Atomic<Int>(0)
    /// Video frames in the queue: how far behind the live input the variant is. The queue's own
    /// count includes audio packets (about 1.6 per frame), which say nothing about that.
    let queuedFrames = Atomic<Int>(0)

    /// The effort steps this rung may run at (configured first), the rule's state, whether it
    /// applies (a live input), and x264's threads.
    private let steps: [EffortStep]
    private var effort: EffortState
    private let adaptsEffort: Bool
    private let threads: Int
    private let now: @Sendable () -> Double
    /// What this thread measured over the segment being encoded.
    private var meter = (busy: 0.0, frames: 0, droppedBefore: 0)
    private var reportedStartingEffort = false
    /// Set once the variant has been reported failed, by its own thread or the input's.
    private let reportedFailure = Atomic<Bool>(false)

    /// See `PipelineConfiguration.simulatedEncodeDelay`.
    var simulatedEncodeDelay: Double = 0
    /// Failures the operator asked for (`PipelineDrills`).
    var drills: PipelineDrills?
    /// Rates asked for while running (`LivePipeline.bitRates`), and the last change applied.
    var bitRates: BitRateControl?
    private var bitRateGeneration = 0
    /// When this encoder last said it made pictures (`PipelineEvent.progress`).
    private var lastProgressReport = -Double.infinity

    /// `queueCapacity`: frames the variant may fall behind before the input leaves frames out
    /// for it; `live`: whether effort follows the machine (see `EffortSettings`).
    init(spec: Rung, keyframes: KeyframeSchedule, audio: AudioEncoder?, logger: Logger, queueCapacity: Int = 8, effort settings: EffortSettings = EffortSettings(),
         live: Bool = false, now: @escaping @Sendable () -> Double = MonotonicClock.seconds,
         onEvent: @escaping @Sendable (PipelineEvent) -> Void,
         onEncoded: @escaping @Sendable (Double, Int?) -> Void) throws(PipelineError) {
        self.spec = spec
        self.keyframes = keyframes
        let (clock, parts) = (keyframes.segments, keyframes.parts)
        self.queue = BoundedQueue(capacity: queueCapacity)
        self.scaler = VideoScaler(width: spec.width, height: spec.height)
        self.audio = audio
        self.onEvent = onEvent
        self.onEncoded = onEncoded
        self.logger = logger
        let steps = EffortSteps.steps(for: spec)
        self.steps = steps
        let costs = settings.relativeCosts[spec.name].flatMap { $0.count == steps.count ? $0 : nil } ?? steps.map(\.relativeCost)
        let adapts = live && settings.adaptive
        self.adaptsEffort = adapts
        self.effort = EffortState(rule: settings.rule, costs: costs, frameRate: clock.frameRate.value, startingStep: adapts ? settings.startingStep : 0)
        self.threads = settings.threadsPerRung
        self.now = now
        (encoder, muxer) = try Self.makeEncoder(spec: spec, clock: clock, parts: parts, step: steps[effort.step], threads: settings.threadsPerRung, audio: audio,
                                                onEvent: onEvent, onEncoded: onEncoded)
    }

    /// A new encoder and muxer for this variant. The muxer starts its first segment at the
    /// first IDR it is given, so a replacement joins the output timeline at a segment boundary.
    private static func makeEncoder(spec: Rung, clock: SegmentClock, parts: PartClock?, step: EffortStep, threads: Int, audio: AudioEncoder?,
                                    onEvent: @escaping @Sendable (PipelineEvent) -> Void,
                                    onEncoded: @escaping @Sendable (Double, Int?) -> Void) throws(PipelineError) -> (VideoEncoder, SegmentMuxer) {
        let encoder = try VideoEncoder(spec: spec, clock: clock, step: step, threads: threads, framesPerPart: parts.map { Int($0.minimumFramesPerPart) })
        let name = spec.name
        do {
            let muxer = try SegmentMuxer(video: encoder, audio: audio, clock: clock, parts: parts, emitPart: { onEvent(.part(variant: name, $0)) }) { segment in
                onEncoded(segment.startTime + segment.duration, segment.bytes.count)
                onEvent(.segment(variant: name, segment))
            }
            return (encoder, muxer)
        } catch {
            throw .encoderSetupFailed(variant: spec.name, reason: error.description)
        }
    }

    /// The thread body. Returns when `.end` has been handled, or when the queue is closed
    /// (the input gave up on this variant, or the input ended while it was failed).
    func run() {
        var resumeWith: VariantMessage?
        while true {
            do {
                if let first = resumeWith {
                    resumeWith = nil
                    if try process(first) { return }
                }
                while let message = takeMessage() {
                    if try process(message) { return }
                }
                return
            } catch {
                report(failure: "\(error)")
                guard let boundary = recover() else { return }
                resumeWith = boundary
            }
        }
    }

    private func takeMessage() -> VariantMessage? {
        let message = queue.take()
        if case .video = message { queuedFrames.subtract(1, ordering: .relaxed) }
        return message
    }

    /// Handles one message; true once the last one (`.end`) has been handled.
    private func process(_ message: VariantMessage) throws -> Bool {
        switch message {
        case let .video(frame, index, captured):
            try encode(frame, index: index, captured: captured)
        case let .audio(packet):
            muxer.addAudio(packet)
        case .end:
            // Closed first: if the flush fails, nothing more will come, and the recovery
            // that follows must find the queue closed instead of waiting for ever.
            queue.close()
            try encoder.encode(nil) { packet in try handle(packet) }
            try muxer.finish()
            return true
        }
        return false
    }

    /// After a failure: drops what arrives (the input never waits for a failed variant) while
    /// setting up a new encoder with backoff, then returns the first frame of the next segment,
    /// where the new encoder starts. Nil when the input ends first.
    private func recover() -> VariantMessage? {
        // The first attempt comes one wait after the failure; then `Backoff.encoderRecovery`.
        var backoff = Backoff.encoderRecovery
        backoff.failed(at: MonotonicClock.seconds())
        var ready = false
        while let message = takeMessage() {
            guard case let .video(_, index, _) = message else {
                if case .end = message {
                    queue.close()
                    return nil
                }
                continue
            }
            if !ready {
                guard backoff.isDue(at: MonotonicClock.seconds()) else { continue }
                do {
                    try rebuildEncoder()
                    ready = true
                } catch {
                    logger.warning("variant encoder cannot be set up again yet", metadata: [
                        "variant": "\(spec.name)", "error": "\(error)", "retry-in-seconds": "\(DecimalFormat.compact(backoff.nextDelay))",
                    ])
                    backoff.failed(at: MonotonicClock.seconds())
                    continue
                }
            }
            guard clock.startsSegment(frame: index) else { continue }
            reportedFailure.store(false, ordering: .relaxed)
            logger.notice("variant recovered: a new encoder starts at the next segment",
                          metadata: ["variant": "\(spec.name)", "segment": "\(clock.segment(ofFrame: index))"])
            return message
        }
        return nil
    }

    private func rebuildEncoder() throws {
        if drills?.isVariantHeldDown(spec.name) == true { throw DrillFailure(variant: spec.name) }
        (encoder, muxer) = try Self.makeEncoder(spec: spec, clock: clock, parts: parts, step: steps[effort.step], threads: threads, audio: audio,
                                                onEvent: onEvent, onEncoded: onEncoded)
        captureTimes = [:]
        reportedFormat = false
        // The new encoder starts at the configured rate: apply the asked one again.
        bitRateGeneration = -1
    }

    /// Reports the variant failed, once per failure, without stopping its thread (it recovers).
    private func report(failure reason: String) {
        guard !reportedFailure.exchange(true, ordering: .relaxed) else { return }
        logger.error("variant failed", metadata: ["variant": "\(spec.name)", "error": "\(reason)"])
        onEvent(.variantFailed(variant: spec.name, reason: reason))
    }

    /// Stops feeding this variant and reports it failed: called from the input thread when the
    /// variant has stalled. Its thread ends once it has taken what was queued; its siblings go on.
    func abandon(reason: String) {
        // Closing makes the input thread's puts return at once instead of blocking.
        queue.close()
        report(failure: reason)
    }

    private func encode(_ frame: OwnedFrame, index: Int64, captured: Date) throws {
        guard let source = frame.pointer else { return }
        if drills?.takeFailure(for: spec.name) == true { throw DrillFailure(variant: spec.name) }
        let boundary = clock.startsSegment(frame: index)
        if boundary { try followEffort() }
        let started = ContinuousClock.now
        defer {
            meter.busy += started.duration(to: .now).inSeconds
            meter.frames += 1
        }
        // A stand-in for a slow machine costs what a real encoder would at this step.
        if simulatedEncodeDelay > 0 { Thread.sleep(forTimeInterval: simulatedEncodeDelay * effort.costs[effort.step]) }
        var scaled: UnsafeMutablePointer<AVFrame>? = try scaler.scale(source)
        defer { av_frame_free(&scaled) }
        let output = scaled!
        output.pointee.pts = index
        if let bitRates, bitRates.generation != bitRateGeneration {
            bitRateGeneration = bitRates.generation
            let wanted = bitRates.rate(for: spec.name) ?? spec.bitrate.bitsPerSecond
            if wanted != encoder.bitRate { encoder.setBitRate(wanted) }
        }
        // Force an IDR exactly where the schedule says (segment boundaries, and part boundaries
        // on a pair that asks), and clear the source's own picture types so its keyframes cause
        // no extra cuts.
        output.pointee.pict_type = keyframes.forcesKeyframe(frame: index, after: lastEncoded) ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        lastEncoded = index
        if boundary { captureTimes[index] = captured }
        try encoder.encode(output) { packet in try handle(packet) }
    }

    /// At a segment boundary, before its first frame: what the rung measured over the segment
    /// that ended goes to the effort rule, and a change of step starts a new encoder here, where
    /// the forced IDR begins a new coded sequence anyway. The old encoder is drained first, so
    /// its last frames close the segment that ends.
    private func followEffort() throws {
        guard adaptsEffort else { return }
        if !reportedStartingEffort {
            reportedStartingEffort = true
            onEvent(.effort(variant: spec.name, EffortReport(step: effort.step, name: steps[effort.step].name, change: nil, load: nil)))
        }
        defer { meter = (0, 0, droppedFrames.load(ordering: .relaxed)) }
        guard meter.frames > 0 else { return }
        let dropped = droppedFrames.load(ordering: .relaxed)
        let load = SegmentLoad(mediaSeconds: Double(meter.frames + dropped - meter.droppedBefore) * clock.frameRate.frameDuration,
                               busySeconds: meter.busy, backlogFrames: queuedFrames.load(ordering: .relaxed), droppedFrames: dropped - meter.droppedBefore)
        // Every segment's load, for the box's rung shedding (`RungShedding`), which acts once
        // effort steps are spent.
        onEvent(.segmentLoad(variant: spec.name, atCheapestStep: effort.step == steps.count - 1, load))
        guard let change = effort.decide(after: load, at: now()) else { return }
        let step = steps[effort.step]
        try encoder.encode(nil) { packet in try handle(packet) }
        encoder = try VideoEncoder(spec: spec, clock: clock, step: step, threads: threads, framesPerPart: parts.map { Int($0.minimumFramesPerPart) })
        // The new encoder starts at the configured rate: apply the asked one again.
        bitRateGeneration = -1
        logger.notice("variant encoder effort changed at a segment boundary", metadata: [
            "variant": "\(spec.name)", "effort": "\(step.name)", "change": "\(change)",
            "busy-share": "\(DecimalFormat.compact(load.busyShare))", "backlog-frames": "\(load.backlogFrames)", "dropped": "\(load.droppedFrames)",
        ])
        onEvent(.effort(variant: spec.name, EffortReport(step: effort.step, name: step.name, change: change, load: load)))
    }

    private func handle(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        if !reportedFormat, packet.pointee.flags & AV_PKT_FLAG_KEY != 0 { reportFormat(from: packet) }
        let captured = captureTimes.removeValue(forKey: packet.pointee.pts)
        let mediaTime = clock.frameRate.time(ofFrame: packet.pointee.pts + 1)
        try muxer.addVideo(packet, captured: captured)
        onEncoded(mediaTime, nil)
        // A quarter second apart at most: the server waits for a late encoder that says so. Not
        // once reported failed: a worker given up on still drains what its queue holds, and
        // that must not read as its encoder back (`recover()` clears the flag when it is).
        let at = now()
        if at - lastProgressReport >= EncoderProgress.interval && !reportedFailure.load(ordering: .relaxed) {
            lastProgressReport = at
            onEvent(.progress(variant: spec.name))
        }
    }

    /// CODECS comes from the SPS the encoder really wrote (its level), with the profile that
    /// covers every effort step of the rung (`H264Profile.covering`): a step changes the profile
    /// x264 writes, and the master, read once, must hold for every segment.
    private func reportFormat(from packet: UnsafeMutablePointer<AVPacket>) {
        let buffer = UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))
        let covering = H264Profile.covering(spec)
        guard let sps = AnnexB.nalUnits(in: buffer).first(where: { ($0.first ?? 0) & 0x1F == 7 }),
              let video = AVCCodecString.make(fromSPS: sps, declaringProfile: covering.idc, constraintFlags: covering.constraintFlags) else {
            logger.warning("no SPS in the first keyframe; CODECS cannot be given yet", metadata: ["variant": "\(spec.name)"])
            return
        }
        reportedFormat = true
        let codecs = audio != nil ? [video, AVCCodecString.aacLC] : [video]
        onEvent(.variantFormat(variant: spec.name, VariantFormat(codecs: codecs, width: spec.width, height: spec.height, frameRate: clock.frameRate.value)))
    }
}
