import CFFmpeg
import EncoderEffort
import PipelineCore
import SidelineCore

/// libx264 for one variant, set up so that IDRs fall exactly where the segment clock says:
/// GOP as long as the longest segment, no scene-cut keyframes, closed GOPs, and a forced IDR
/// on each frame whose `pict_type` is I.
///
/// `step` is the effort it runs at (the rung's own preset, or a cheaper step the effort rule
/// chose); `threads` is x264's thread count (0: x264's own choice, 1.5 per core).
/// `framesPerPart`: the output is cut into parts of at least this many frames (Low-Latency
/// HLS), so every frame must leave the encoder within one part of entering it
/// (`partParameters`).
final class VideoEncoder {
    let spec: Rung
    let step: EffortStep
    private(set) var context: UnsafeMutablePointer<AVCodecContext>?
    private let packet: UnsafeMutablePointer<AVPacket>

    init(spec: Rung, clock: SegmentClock, step: EffortStep? = nil, threads: Int = 0, framesPerPart: Int? = nil) throws(PipelineError) {
        self.spec = spec
        let step = step ?? EffortSteps.steps(for: spec)[0]
        self.step = step
        guard let codec = avcodec_find_encoder_by_name("libx264") else { throw .encoderUnavailable(name: "libx264") }
        guard let context = avcodec_alloc_context3(codec), let packet = av_packet_alloc() else {
            throw .internalFailure("cannot allocate the video encoder")
        }
        self.context = context
        self.packet = packet
        let rate = clock.frameRate
        context.pointee.width = Int32(spec.width)
        context.pointee.height = Int32(spec.height)
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.time_base = AVRational(num: Int32(rate.denominator), den: Int32(rate.numerator))
        context.pointee.framerate = AVRational(num: Int32(rate.numerator), den: Int32(rate.denominator))
        context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        context.pointee.bit_rate = Int64(spec.bitrate.bitsPerSecond)
        context.pointee.rc_max_rate = Int64(spec.maxrate.bitsPerSecond)
        context.pointee.rc_buffer_size = Int32(clamping: spec.bufsize.bitsPerSecond)
        context.pointee.gop_size = Int32(clock.maximumFramesPerSegment)
        context.pointee.keyint_min = Int32(clock.maximumFramesPerSegment)
        context.pointee.thread_count = Int32(threads)
        // No AV_CODEC_FLAG_GLOBAL_HEADER: MPEG-TS needs SPS/PPS in band, before every IDR.
        av_opt_set(context.pointee.priv_data, "preset", step.preset, 0)
        av_opt_set(context.pointee.priv_data, "profile", spec.profile, 0)
        av_opt_set(context.pointee.priv_data, "forced-idr", "1", 0)
        var x264Params = "scenecut=0:open-gop=0"
        if let lookahead = spec.lookahead { x264Params += ":rc-lookahead=\(lookahead)" }
        if !step.x264Params.isEmpty { x264Params += ":" + step.x264Params }
        if let framesPerPart { x264Params += ":" + Self.partParameters(framesPerPart: framesPerPart, lookahead: spec.lookahead) }
        av_opt_set(context.pointee.priv_data, "x264-params", x264Params, 0)
        let opened = avcodec_open2(context, codec, nil)
        if opened < 0 {
            avcodec_free_context(&self.context)
            var p: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&p)
            throw .encoderSetupFailed(variant: spec.name, reason: "libx264 rejected the settings at effort \(step.name) (\(FFmpegError.text(for: opened)))")
        }
    }

    /// What x264 is told when parts are cut, so a frame comes out less than one part after it
    /// went in (`EncoderDelayTests` counts it, Docs/low-latency.md gives the quality cost):
    /// - no B-frames: a B-frame comes out after the later frame it refers to, which holds
    ///   frames back, and parts cut in decode order would overlap in presentation time (seen:
    ///   parts of -0.07 s before this);
    /// - slice threads instead of frame threads (each frame thread holds one more frame:
    ///   9 frames with x264's own thread count against 6 with one thread, counted by
    ///   `EncoderDelayTests.delays` with B-frames off and frame threads, 2026-11-29);
    /// - rate-control lookahead at most two frames short of a part (a part of 6 frames at
    ///   30 fps: lookahead 4, the frame itself 1, 5 in all), and no threaded lookahead sync.
    static func partParameters(framesPerPart: Int, lookahead: Int?) -> String {
        let most = max(0, framesPerPart - 2)
        return "bframes=0:sliced-threads=1:sync-lookahead=0:rc-lookahead=\(min(lookahead ?? most, most))"
    }

    deinit {
        avcodec_free_context(&context)
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
    }

    var timeBase: AVRational { context!.pointee.time_base }

    /// The average bit rate the encoder runs at now.
    var bitRate: Int { Int(context!.pointee.bit_rate) }

    /// Encodes the frames sent from now on at `bitsPerSecond` on average, with maxrate and
    /// bufsize in the rung's configured proportion to it. libx264 (through libavcodec) compares
    /// the context's rates with its own before every frame and reconfigures itself when they
    /// differ (`x264_encoder_reconfig`), so no frame is lost and the stream stays one stream.
    func setBitRate(_ bitsPerSecond: Int) {
        let configured = Double(spec.bitrate.bitsPerSecond)
        context!.pointee.bit_rate = Int64(bitsPerSecond)
        context!.pointee.rc_max_rate = Int64((Double(spec.maxrate.bitsPerSecond) / configured * Double(bitsPerSecond)).rounded())
        context!.pointee.rc_buffer_size = Int32(clamping: Int((Double(spec.bufsize.bitsPerSecond) / configured * Double(bitsPerSecond)).rounded()))
    }

    /// Encodes `frame` (nil drains) and hands every packet that comes out to `body`; the packet
    /// is only valid inside `body`.
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?, _ body: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        try check(avcodec_send_frame(context, frame), "avcodec_send_frame(libx264)")
        while true {
            let received = avcodec_receive_packet(context, packet)
            if received == sideline_averror_eagain() || received == sideline_averror_eof() { return }
            try check(received, "avcodec_receive_packet(libx264)")
            defer { av_packet_unref(packet) }
            try body(packet)
        }
    }
}
