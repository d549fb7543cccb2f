import CFFmpeg
import PipelineCore

/// A libavcodec decoder for one stream of the input. Owned by the input thread.
final class StreamDecoder {
    let streamIndex: Int32
    let timeBase: AVRational
    private(set) var context: UnsafeMutablePointer<AVCodecContext>?

    init(stream: UnsafeMutablePointer<AVStream>, input: String) throws(PipelineError) {
        guard let parameters = stream.pointee.codecpar else { throw .internalFailure("stream without codec parameters") }
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw .unsupportedCodec(input: input, codec: String(cString: avcodec_get_name(parameters.pointee.codec_id)))
        }
        guard let context = avcodec_alloc_context3(codec) else { throw .internalFailure("avcodec_alloc_context3 returned NULL") }
        self.context = context
        self.streamIndex = stream.pointee.index
        self.timeBase = stream.pointee.time_base
        do {
            try check(avcodec_parameters_to_context(context, parameters), "avcodec_parameters_to_context")
            context.pointee.pkt_timebase = stream.pointee.time_base
            // Let libavcodec pick frame threading for big frames; decode must keep up with 1080p60 cameras.
            context.pointee.thread_count = 0
            try check(avcodec_open2(context, codec, nil), "avcodec_open2")
        } catch {
            throw .unsupportedCodec(input: input, codec: "\(String(cString: codec.pointee.name)) (\(error.text))")
        }
    }

    deinit { avcodec_free_context(&context) }

    /// Sends one packet (or nil to drain) and hands every frame that comes out to `body`.
    /// Returns false if the decoder rejected the packet as corrupt; the packet is then skipped.
    @discardableResult
    func decode(_ packet: UnsafeMutablePointer<AVPacket>?, frame: UnsafeMutablePointer<AVFrame>, _ body: (UnsafeMutablePointer<AVFrame>) throws -> Void) rethrows -> Bool {
        let sent = avcodec_send_packet(context, packet)
        var accepted = sent >= 0 || sent == sideline_averror_eof()
        if sent == sideline_averror_eagain() { accepted = true }
        while true {
            let received = avcodec_receive_frame(context, frame)
            if received < 0 { break }
            defer { av_frame_unref(frame) }
            try body(frame)
        }
        return accepted
    }

    /// Forgets all state after a drain, so decoding can start again (at a loop or seek).
    func reset() { avcodec_flush_buffers(context) }
}
