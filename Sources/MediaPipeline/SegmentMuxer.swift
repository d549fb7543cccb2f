import CFFmpeg
import Foundation
import HLSPlaylist
import MPEGTS
import PipelineCore

/// Muxes one variant into MPEG-TS segments in memory. One libavformat muxer lives for the
/// whole stream, so continuity counters and timestamps run on across segments; at each cut
/// the muxer is flushed (`av_write_frame(ctx, NULL)`) into the outgoing segment's dynamic
/// buffer and a new buffer starts with PAT/PMT before the IDR (the practice hlsenc.c follows).
///
/// Packets are interleaved here rather than by libavformat: audio waits in `pendingAudio`
/// until the video reaches its time, so each segment holds the audio of its own media span
/// even though the video encoder runs frames behind the audio.
///
/// With a `PartClock` (Low-Latency HLS), each part is cut the same way a segment is: at the
/// first frame of each part the muxer is flushed into the part's own buffer and the next part
/// starts with PAT and PMT; the part is handed on at once, and the segment is its parts'
/// bytes one after another, so nothing is muxed or stored twice.
final class SegmentMuxer {
    /// Added to every output timestamp, so B-frame DTS never goes negative. The muxer adds its
    /// own PCR lead on top (`muxDelayMicroseconds`, the ffmpeg CLI's default): output time 0
    /// shows as PTS 2.4 s in the segments (measured with ffprobe).
    static let timestampOffset: Int64 = 90_000
    static let muxDelayMicroseconds: Int32 = 700_000

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let videoStream: UnsafeMutablePointer<AVStream>
    private let audioStream: UnsafeMutablePointer<AVStream>?
    private let videoTimeBase: AVRational
    private let audioTimeBase: AVRational
    private var pendingAudio: [OwnedPacket] = []
    private var open: (index: Int, startPTS: Int64, captured: Date, keyframeRanges: [Range<Int>])?
    /// The part being written (with parts): its index in the segment, where it starts in the
    /// segment's bytes and on the timeline, and whether it starts with the segment's IDR.
    private var openPart: (index: Int, position: (segment: Int, part: Int), offset: Int, startPTS: Int64, independent: Bool)?
    /// The open segment's bytes so far: its closed parts, one after another.
    private var segmentBytes: [UInt8] = []
    private let parts: PartClock?
    private let emitPart: ((EncodedPart) -> Void)?
    private var lastVideoPTS: Int64 = 0
    /// The last video DTS written, in the stream's time base (see `write`).
    private var lastVideoDTS: Int64?
    private let frameDuration90k: Int64
    private let emit: (EncodedSegment) -> Void
    private let clock: SegmentClock

    /// `parts` and `emitPart`: cut each segment into parts on that clock and hand each on as it
    /// closes; nil: whole segments only.
    init(video: VideoEncoder, audio: AudioEncoder?, clock: SegmentClock, parts: PartClock? = nil, emitPart: ((EncodedPart) -> Void)? = nil,
         emit: @escaping (EncodedSegment) -> Void) throws(FFmpegError) {
        self.emit = emit
        self.clock = clock
        self.parts = parts
        self.emitPart = parts == nil ? nil : emitPart
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&ctx, nil, "mpegts", nil), "avformat_alloc_output_context2(mpegts)")
        context = ctx
        guard let ctx, let vs = avformat_new_stream(ctx, nil) else { throw FFmpegError(call: "avformat_new_stream", code: sideline_averror(ENOMEM)) }
        videoStream = vs
        videoTimeBase = video.timeBase
        try check(avcodec_parameters_from_context(vs.pointee.codecpar, video.context), "avcodec_parameters_from_context(video)")
        vs.pointee.time_base = video.timeBase
        if let audio, let s = avformat_new_stream(ctx, nil) {
            audioStream = s
            audioTimeBase = audio.timeBase
            try check(avcodec_parameters_from_context(s.pointee.codecpar, audio.context), "avcodec_parameters_from_context(audio)")
            s.pointee.time_base = audio.timeBase
        } else {
            audioStream = nil
            audioTimeBase = AVRational(num: 1, den: 48000)
        }
        frameDuration90k = av_rescale_q(1, video.timeBase, AVRational(num: 1, den: 90000))
        // PCR leads DTS by the mux delay (the T-STD buffer model wants a lead; 0.7 s is the ffmpeg
        // CLI's default). Timestamps are already positive, so libavformat must not shift them.
        ctx.pointee.max_delay = Self.muxDelayMicroseconds
        ctx.pointee.avoid_negative_ts = 0 // AVFMT_AVOID_NEG_TS_DISABLED
        try check(avio_open_dyn_buf(&ctx.pointee.pb), "avio_open_dyn_buf")
        try check(avformat_write_header(ctx, nil), "avformat_write_header(mpegts)")
    }

    deinit {
        if let ctx = context, ctx.pointee.pb != nil {
            var buffer: UnsafeMutablePointer<UInt8>?
            _ = avio_close_dyn_buf(ctx.pointee.pb, &buffer)
            av_free(buffer)
            ctx.pointee.pb = nil
        }
        avformat_free_context(context)
    }

    /// Queues an encoded audio packet (pts in the audio encoder's time base).
    func addAudio(_ packet: OwnedPacket) {
        guard audioStream != nil else { return }
        pendingAudio.append(packet)
    }

    /// Writes one encoded video packet; if its frame starts a segment, the open segment is
    /// closed first. `captured` is the wall-clock time its source frame was captured.
    func addVideo(_ packet: UnsafeMutablePointer<AVPacket>, captured: Date?) throws(FFmpegError) {
        let pts90k = rescale90k(packet.pointee.pts, videoTimeBase)
        let startsSegment = clock.startsSegment(frame: packet.pointee.pts) && packet.pointee.flags & AV_PKT_FLAG_KEY != 0
        if startsSegment {
            try writeAudio(before: pts90k)
            try closeSegment(endPTS: pts90k)
            try startSegment(index: clock.segment(ofFrame: packet.pointee.pts), pts90k: pts90k, captured: captured ?? Date())
        } else if let parts, open != nil, let part = openPart, case let position = parts.position(ofFrame: packet.pointee.pts), position != part.position {
            // The first frame on a new part of the grid, whether or not the frame that starts it
            // was left out (a variant that falls behind has frames left out): a part never runs
            // past its span. Numbered on from the open part, so a segment that runs on past its
            // boundary (its first frame was no keyframe) never repeats an index.
            try writeAudio(before: pts90k)
            try closePart(endPTS: pts90k)
            // INDEPENDENT=YES exactly where the part starts with a keyframe (every part on a
            // pair with `keyframe_every_part`).
            try startPart(index: part.index + 1, at: position, pts90k: pts90k, independent: packet.pointee.flags & AV_PKT_FLAG_KEY != 0)
        } else {
            try writeAudio(before: rescale90k(packet.pointee.dts, videoTimeBase) + 1)
        }
        guard open != nil, let ctx = context else { return } // video before the first IDR cannot start a segment
        let before = Int(avio_tell(ctx.pointee.pb))
        lastVideoPTS = max(lastVideoPTS, pts90k)
        let isKeyframe = packet.pointee.flags & AV_PKT_FLAG_KEY != 0
        try write(packet, stream: videoStream, from: videoTimeBase)
        // The TS muxer writes video PES packets at once (only audio is buffered), so the
        // position after the write is the end of this frame's TS packets. Offsets in the
        // segment: the part's own offset plus the position in its buffer.
        let base = openPart?.offset ?? 0
        if isKeyframe { open!.keyframeRanges.append((base + before)..<(base + Int(avio_tell(ctx.pointee.pb)))) }
    }

    /// Writes what is left and emits the last (possibly shorter) segment.
    func finish() throws(FFmpegError) {
        try writeAudio(before: .max)
        try closeSegment(endPTS: lastVideoPTS + frameDuration90k)
        if let ctx = context { av_write_trailer(ctx) }
    }

    private func startSegment(index: Int, pts90k: Int64, captured: Date) throws(FFmpegError) {
        segmentBytes = []
        try startPart(index: 0, at: (index, 0), pts90k: pts90k, independent: true)
        open = (index, pts90k, captured, [])
    }

    /// A new buffer for what comes next (a segment's first part, or the whole segment without
    /// parts), beginning with PAT and PMT so it decodes on its own.
    /// `position`: where on the part grid it starts (`PartClock.position`).
    private func startPart(index: Int, at position: (segment: Int, part: Int), pts90k: Int64, independent: Bool) throws(FFmpegError) {
        guard let ctx = context else { return }
        if ctx.pointee.pb == nil { try check(avio_open_dyn_buf(&ctx.pointee.pb), "avio_open_dyn_buf") }
        av_opt_set(ctx.pointee.priv_data, "mpegts_flags", "+resend_headers", 0)
        openPart = (index, position, segmentBytes.count, pts90k, independent)
    }

    /// Flushes the muxer into the open buffer and takes its bytes, PAT then PMT first
    /// (libavformat writes the SDT before them); with parts, hands the part on.
    private func closePart(endPTS: Int64) throws(FFmpegError) {
        guard let part = openPart, let segment = open, let ctx = context, ctx.pointee.pb != nil else { return }
        try check(av_write_frame(ctx, nil), "av_write_frame(flush)")
        avio_flush(ctx.pointee.pb)
        var buffer: UnsafeMutablePointer<UInt8>?
        let size = avio_close_dyn_buf(ctx.pointee.pb, &buffer)
        ctx.pointee.pb = nil
        defer { av_free(buffer) }
        let bytes = TransportStreamHeaders.patFirst(buffer.map { Array(UnsafeBufferPointer(start: $0, count: Int(size))) } ?? [])
        openPart = nil
        // Without parts this is the whole segment: taken as it is, not copied.
        if segmentBytes.isEmpty { segmentBytes = bytes } else { segmentBytes += bytes }
        // A part ends where the next frame written starts, but never past its own span of the
        // grid: frames left out at its end (a variant that falls behind) would make it longer
        // than PART-TARGET, which AVPlayer refuses a whole asset for.
        var end = endPTS
        if let parts {
            let spanEnd = rescale90k(parts.firstFrame(ofPart: part.position.part + 1, inSegment: part.position.segment), videoTimeBase)
            if spanEnd > part.startPTS { end = min(end, spanEnd) }
        }
        emitPart?(EncodedPart(segment: segment.index, index: part.index, duration: Double(end - part.startPTS) / 90_000,
                              startTime: Double(part.startPTS) / 90_000, bytes: bytes, independent: part.independent,
                              segmentCaptured: segment.captured))
    }

    private func closeSegment(endPTS: Int64) throws(FFmpegError) {
        guard let segment = open else { return }
        try closePart(endPTS: endPTS)
        open = nil
        let bytes = segmentBytes
        segmentBytes = []
        emit(EncodedSegment(
            index: segment.index,
            duration: Double(endPTS - segment.startPTS) / 90_000,
            startTime: Double(segment.startPTS) / 90_000,
            programDateTime: segment.captured,
            bytes: bytes,
            keyframeRanges: segment.keyframeRanges
        ))
    }

    private func writeAudio(before limit90k: Int64) throws(FFmpegError) {
        var written = 0
        for owned in pendingAudio {
            guard let packet = owned.pointer else { written += 1; continue }
            if rescale90k(packet.pointee.pts, audioTimeBase) >= limit90k { break }
            written += 1
            guard open != nil, let stream = audioStream else { continue } // audio before the first video frame is dropped
            try write(packet, stream: stream, from: audioTimeBase)
        }
        pendingAudio.removeFirst(written)
    }

    private func write(_ packet: UnsafeMutablePointer<AVPacket>, stream: UnsafeMutablePointer<AVStream>, from timeBase: AVRational) throws(FFmpegError) {
        av_packet_rescale_ts(packet, timeBase, stream.pointee.time_base)
        let offset = av_rescale_q(Self.timestampOffset, AVRational(num: 1, den: 90000), stream.pointee.time_base)
        if packet.pointee.pts != sideline_nopts_value() { packet.pointee.pts += offset }
        if packet.pointee.dts != sideline_nopts_value() { packet.pointee.dts += offset }
        if stream == videoStream, packet.pointee.dts != sideline_nopts_value() {
            // A new encoder joining at a segment boundary (an effort step, a recovery) places
            // its first DTS by the PTS gap of its first frames: with a frame dropped just after
            // the boundary that lands on the old encoder's last DTS, and libavformat refuses the
            // packet (EINVAL). One tick later (1/90000 s) keeps DTS rising and below the PTS.
            if let last = lastVideoDTS, packet.pointee.dts <= last {
                packet.pointee.dts = min(last + 1, packet.pointee.pts == sideline_nopts_value() ? last + 1 : packet.pointee.pts)
            }
            lastVideoDTS = packet.pointee.dts
        }
        packet.pointee.stream_index = stream.pointee.index
        try check(av_write_frame(context, packet), "av_write_frame")
    }

    private func rescale90k(_ value: Int64, _ timeBase: AVRational) -> Int64 {
        av_rescale_q(value, timeBase, AVRational(num: 1, den: 90000))
    }
}
