import CFFmpeg
import PipelineCore

/// Resamples decoded audio with libswresample to the configured rate and layout, keeps it on
/// the output timeline, and encodes AAC-LC in 1024-sample frames. Runs once per input: every
/// variant muxes the same packets.
///
/// Timeline: each output sample has a fixed place (pts in 1/sample_rate). A hole in the input
/// shorter than two seconds is filled with silence; a longer one moves the timeline (a jump);
/// input that overlaps what was already written by more than 100 ms is dropped. So audio stays
/// within about one frame of the video through loops, gaps and clock drift.
final class AudioEncoder {
    let spec: AudioSpec
    private(set) var context: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    private var fifo: OpaquePointer?
    private var resampled: UnsafeMutablePointer<AVFrame>?
    private var chunk: UnsafeMutablePointer<AVFrame>?
    private let packet: UnsafeMutablePointer<AVPacket>
    private var inputSignature: (Int32, Int32, Int32) = (-1, -1, -1)
    /// Output pts of the first sample waiting in the FIFO; nil before the first sample.
    private var fifoStart: Int64?
    private(set) var droppedFrames = 0
    private(set) var silenceInserted: Int64 = 0

    init(spec: AudioSpec) throws(PipelineError) {
        self.spec = spec
        guard let codec = avcodec_find_encoder_by_name("aac") else { throw .encoderUnavailable(name: "aac") }
        guard let context = avcodec_alloc_context3(codec), let packet = av_packet_alloc() else {
            throw .internalFailure("cannot allocate the audio encoder")
        }
        self.context = context
        self.packet = packet
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        context.pointee.sample_rate = Int32(spec.sampleRate)
        context.pointee.bit_rate = Int64(spec.bitrate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(spec.sampleRate))
        context.pointee.profile = FF_PROFILE_AAC_LOW
        av_channel_layout_default(&context.pointee.ch_layout, Int32(spec.channels))
        let opened = avcodec_open2(context, codec, nil)
        guard opened >= 0 else {
            avcodec_free_context(&self.context)
            throw .encoderSetupFailed(variant: "audio", reason: "the AAC encoder rejected the settings (\(FFmpegError.text(for: opened)))")
        }
        fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, Int32(spec.channels), 4096)
        resampled = av_frame_alloc()
        chunk = av_frame_alloc()
    }

    deinit {
        swr_free(&resampler)
        av_audio_fifo_free(fifo)
        av_frame_free(&resampled)
        av_frame_free(&chunk)
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
        avcodec_free_context(&context)
    }

    var timeBase: AVRational { context!.pointee.time_base }
    private var frameSize: Int32 { max(context!.pointee.frame_size, 1024) }

    /// Adds one decoded frame whose first sample belongs at `outputTime` seconds.
    func push(_ frame: UnsafeMutablePointer<AVFrame>, outputTime: Double, emit: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        let target = Int64((outputTime * Double(spec.sampleRate)).rounded())
        guard target >= 0 else { return }
        try prepareResampler(for: frame)
        av_frame_unref(resampled)
        resampled!.pointee.sample_rate = Int32(spec.sampleRate)
        resampled!.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        try check(av_channel_layout_copy(&resampled!.pointee.ch_layout, &context!.pointee.ch_layout), "av_channel_layout_copy")
        try check(swr_convert_frame(resampler, resampled, frame), "swr_convert_frame")
        let count = resampled!.pointee.nb_samples
        guard count > 0 else { return }

        let expected = (fifoStart ?? target) + Int64(av_audio_fifo_size(fifo))
        let gap = target - expected
        let rate = Int64(spec.sampleRate)
        if fifoStart == nil {
            fifoStart = target
        } else if gap > rate * 2 {
            try flushFIFO(padding: true, emit: emit)
            fifoStart = target
        } else if gap > Int64(frameSize) {
            try writeSilence(samples: Int32(gap))
        } else if gap < -rate / 10 {
            droppedFrames += 1
            return
        }
        try writeToFIFO(resampled!, count: count)
        try encodeFullFrames(emit: emit)
    }

    /// Encodes what is left (padded with silence to a whole frame) and drains the encoder.
    func drain(emit: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        try flushFIFO(padding: true, emit: emit)
        try send(nil, emit: emit)
    }

    private func prepareResampler(for frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) {
        // A source without a channel layout (raw PCM from a capture device, some containers)
        // gets the default layout for its channel count, on every frame: swr_convert_frame
        // compares each frame with the layout the resampler was configured with.
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            let channels = max(1, frame.pointee.ch_layout.nb_channels)
            av_channel_layout_uninit(&frame.pointee.ch_layout)
            av_channel_layout_default(&frame.pointee.ch_layout, channels)
        }
        let signature = (frame.pointee.format, frame.pointee.sample_rate, frame.pointee.ch_layout.nb_channels)
        if resampler != nil && signature == inputSignature { return }
        swr_free(&resampler)
        inputSignature = signature
        try check(swr_alloc_set_opts2(&resampler, &context!.pointee.ch_layout, AV_SAMPLE_FMT_FLTP, Int32(spec.sampleRate),
                                      &frame.pointee.ch_layout, AVSampleFormat(frame.pointee.format), frame.pointee.sample_rate, 0, nil), "swr_alloc_set_opts2")
        try check(swr_init(resampler), "swr_init")
    }

    private func writeToFIFO(_ frame: UnsafeMutablePointer<AVFrame>, count: Int32) throws(FFmpegError) {
        try withUnsafeMutablePointer(to: &frame.pointee.data) { data throws(FFmpegError) in
            let planes = UnsafeMutableRawPointer(data).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
            let written = av_audio_fifo_write(fifo, planes, count)
            guard written == count else { throw FFmpegError(call: "av_audio_fifo_write", code: written < 0 ? written : sideline_averror(ENOMEM)) }
        }
    }

    private func writeSilence(samples: Int32) throws {
        silenceInserted += Int64(samples)
        var remaining = samples
        while remaining > 0 {
            let n = min(remaining, frameSize)
            let silence = try makeChunk(samples: n)
            av_samples_set_silence(silence.pointee.extended_data, 0, n, Int32(spec.channels), AV_SAMPLE_FMT_FLTP)
            try writeToFIFO(silence, count: n)
            remaining -= n
        }
    }

    private func makeChunk(samples: Int32) throws(FFmpegError) -> UnsafeMutablePointer<AVFrame> {
        av_frame_unref(chunk)
        let frame = chunk!
        frame.pointee.nb_samples = samples
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = Int32(spec.sampleRate)
        try check(av_channel_layout_copy(&frame.pointee.ch_layout, &context!.pointee.ch_layout), "av_channel_layout_copy")
        try check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer(audio)")
        return frame
    }

    private func encodeFullFrames(emit: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        while av_audio_fifo_size(fifo) >= frameSize {
            try encodeChunk(samples: frameSize, emit: emit)
        }
    }

    private func flushFIFO(padding: Bool, emit: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        try encodeFullFrames(emit: emit)
        let left = av_audio_fifo_size(fifo)
        if left > 0 && padding {
            try writeSilence(samples: frameSize - left)
            try encodeChunk(samples: frameSize, emit: emit)
        }
    }

    private func encodeChunk(samples: Int32, emit: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        let frame = try makeChunk(samples: samples)
        withUnsafeMutablePointer(to: &frame.pointee.data) { data in
            let planes = UnsafeMutableRawPointer(data).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
            _ = av_audio_fifo_read(fifo, planes, samples)
        }
        frame.pointee.pts = fifoStart ?? 0
        fifoStart = (fifoStart ?? 0) + Int64(samples)
        try send(frame, emit: emit)
    }

    private func send(_ frame: UnsafeMutablePointer<AVFrame>?, emit: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        try check(avcodec_send_frame(context, frame), "avcodec_send_frame(aac)")
        while true {
            let received = avcodec_receive_packet(context, packet)
            if received == sideline_averror_eagain() || received == sideline_averror_eof() { return }
            try check(received, "avcodec_receive_packet(aac)")
            defer { av_packet_unref(packet) }
            try emit(packet)
        }
    }
}
