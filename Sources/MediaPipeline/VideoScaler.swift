import CFFmpeg

/// libswscale from whatever the input delivers to the variant's size in YUV 4:2:0. The
/// context is rebuilt when the input's size or pixel format changes mid-stream, so a camera
/// that switches resolution keeps streaming.
final class VideoScaler {
    let width: Int32
    let height: Int32
    private var context: OpaquePointer?
    private var sourceWidth: Int32 = 0
    private var sourceHeight: Int32 = 0
    private var sourceFormat: Int32 = -1

    init(width: Int, height: Int) {
        self.width = Int32(width)
        self.height = Int32(height)
    }

    deinit { sws_freeContext(context) }

    /// A new frame of the output size; a reference to the source itself when no scaling is needed.
    func scale(_ source: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) -> UnsafeMutablePointer<AVFrame> {
        guard let output = av_frame_alloc() else { throw FFmpegError(call: "av_frame_alloc", code: sideline_averror(ENOMEM)) }
        var frame: UnsafeMutablePointer<AVFrame>? = output
        if source.pointee.width == width && source.pointee.height == height && source.pointee.format == AV_PIX_FMT_YUV420P.rawValue {
            do { try check(av_frame_ref(output, source), "av_frame_ref") } catch { av_frame_free(&frame); throw error }
            return output
        }
        if context == nil || source.pointee.width != sourceWidth || source.pointee.height != sourceHeight || source.pointee.format != sourceFormat {
            sws_freeContext(context)
            sourceWidth = source.pointee.width
            sourceHeight = source.pointee.height
            sourceFormat = source.pointee.format
            context = sws_getContext(sourceWidth, sourceHeight, AVPixelFormat(sourceFormat), width, height, AV_PIX_FMT_YUV420P, SWS_BICUBIC, nil, nil, nil)
            guard context != nil else {
                av_frame_free(&frame)
                throw FFmpegError(call: "sws_getContext(\(sourceWidth)x\(sourceHeight) -> \(width)x\(height))", code: sideline_averror(EINVAL))
            }
        }
        output.pointee.width = width
        output.pointee.height = height
        output.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        do {
            try check(av_frame_get_buffer(output, 0), "av_frame_get_buffer")
            try withUnsafePointer(to: source.pointee.data) { sourceData throws(FFmpegError) in
                try withUnsafePointer(to: source.pointee.linesize) { sourceLines throws(FFmpegError) in
                    try withUnsafeMutablePointer(to: &output.pointee.data) { outData throws(FFmpegError) in
                        try withUnsafeMutablePointer(to: &output.pointee.linesize) { outLines throws(FFmpegError) in
                            let src = UnsafeRawPointer(sourceData).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                            let dst = UnsafeMutableRawPointer(outData).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
                            try check(sws_scale(context, src, UnsafeRawPointer(sourceLines).assumingMemoryBound(to: Int32.self), 0, sourceHeight,
                                                dst, UnsafeMutableRawPointer(outLines).assumingMemoryBound(to: Int32.self)), "sws_scale")
                        }
                    }
                }
            }
        } catch {
            av_frame_free(&frame)
            throw error
        }
        return output
    }
}
