import CFFmpeg
import Foundation
import HLSPlaylist
import Logging
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
final class VariantWorker {
    let spec: VariantSpec
    let queue: BoundedQueue<VariantMessage>
    private let clock: SegmentClock
    private let scaler: VideoScaler
    private let encoder: VideoEncoder
    private var muxer: SegmentMuxer!
    private let hasAudio: Bool
    private var reportedFormat = false
    /// Capture times of segment-starting frames, until their packet leaves the encoder.
    private var captureTimes: [Int64: Date] = [:]
    private let onEvent: @Sendable (PipelineEvent) -> Void
    private let onEncoded: @Sendable (_ mediaTime: Double, _ segmentBytes: Int?) -> Void
    private let logger: Logger
    /// Frames the input thread left out because this variant's queue was full (input thread only).
    var droppedFrames = 0
    /// Set once the variant has been reported failed, by its own thread or the input's.
    private let reportedFailure = Atomic<Bool>(false)

    /// See `PipelineConfiguration.simulatedEncodeDelay`.
    var simulatedEncodeDelay: Double = 0
    /// Failures the operator asked for (`PipelineDrills`).
    var drills: PipelineDrills?

    init(spec: VariantSpec, clock: SegmentClock, audio: AudioEncoder?, logger: Logger,
         onEvent: @escaping @Sendable (PipelineEvent) -> Void,
         onEncoded: @escaping @Sendable (Double, Int?) -> Void) throws(PipelineError) {
        self.spec = spec
        self.clock = clock
        self.queue = BoundedQueue(capacity: 8)
        self.scaler = VideoScaler(width: spec.width, height: spec.height)
        self.encoder = try VideoEncoder(spec: spec, clock: clock)
        self.hasAudio = audio != nil
        self.onEvent = onEvent
        self.onEncoded = onEncoded
        self.logger = logger
        let name = spec.name
        do {
            muxer = try SegmentMuxer(video: encoder, audio: audio, clock: clock) { segment in
                onEncoded(segment.startTime + segment.duration, segment.bytes.count)
                onEvent(.segment(variant: name, segment))
            }
        } catch {
            throw .encoderSetupFailed(variant: spec.name, reason: error.description)
        }
    }

    /// The thread body. Returns when `.end` has been handled or the variant failed.
    func run() {
        do {
            while let message = queue.take() {
                switch message {
                case let .video(frame, index, captured):
                    try encode(frame, index: index, captured: captured)
                case let .audio(packet):
                    muxer.addAudio(packet)
                case .end:
                    try encoder.encode(nil) { packet in try handle(packet) }
                    try muxer.finish()
                    queue.close()
                    return
                }
            }
        } catch {
            abandon(reason: "\(error)")
        }
    }

    /// Stops this variant and reports it failed, once: on its own thread when encoding fails,
    /// or from the input thread when it has stalled. No more messages are queued; its siblings go on.
    func abandon(reason: String) {
        // Closing makes the input thread's puts return at once instead of blocking.
        queue.close()
        guard !reportedFailure.exchange(true, ordering: .relaxed) else { return }
        logger.error("variant failed", metadata: ["variant": "\(spec.name)", "error": "\(reason)"])
        onEvent(.variantFailed(variant: spec.name, reason: reason))
    }

    private func encode(_ frame: OwnedFrame, index: Int64, captured: Date) throws {
        guard let source = frame.pointer else { return }
        if drills?.takeFailure(for: spec.name) == true { throw DrillFailure(variant: spec.name) }
        if simulatedEncodeDelay > 0 { Thread.sleep(forTimeInterval: simulatedEncodeDelay) }
        var scaled: UnsafeMutablePointer<AVFrame>? = try scaler.scale(source)
        defer { av_frame_free(&scaled) }
        let output = scaled!
        output.pointee.pts = index
        // Force an IDR exactly on segment boundaries, and clear the source's own picture types
        // so its keyframes cause no extra cuts.
        let boundary = clock.startsSegment(frame: index)
        output.pointee.pict_type = boundary ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        if boundary { captureTimes[index] = captured }
        try encoder.encode(output) { packet in try handle(packet) }
    }

    private func handle(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        if !reportedFormat, packet.pointee.flags & AV_PKT_FLAG_KEY != 0 { reportFormat(from: packet) }
        let captured = captureTimes.removeValue(forKey: packet.pointee.pts)
        let mediaTime = clock.frameRate.time(ofFrame: packet.pointee.pts + 1)
        try muxer.addVideo(packet, captured: captured)
        onEncoded(mediaTime, nil)
    }

    /// CODECS comes from the SPS the encoder really wrote, not from the configured profile.
    private func reportFormat(from packet: UnsafeMutablePointer<AVPacket>) {
        let buffer = UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))
        guard let sps = AnnexB.nalUnits(in: buffer).first(where: { ($0.first ?? 0) & 0x1F == 7 }),
              let video = AVCCodecString.make(fromSPS: sps) else {
            logger.warning("no SPS in the first keyframe; CODECS cannot be given yet", metadata: ["variant": "\(spec.name)"])
            return
        }
        reportedFormat = true
        let codecs = hasAudio ? [video, AVCCodecString.aacLC] : [video]
        onEvent(.variantFormat(variant: spec.name, VariantFormat(codecs: codecs, width: spec.width, height: spec.height, frameRate: clock.frameRate.value)))
    }
}
