import CFFmpeg
import Foundation
import PipelineCore
import SidelineCore

/// Remuxes recorded MPEG-TS segments into one MP4 file with libavformat: packets are copied,
/// never decoded or encoded, at the speed of `ffmpeg -c copy` (Docs/benchmarks.md, "Clips",
/// measured by `scripts/bench/run clips`).
///
/// - The segments are read as one stream (libavformat's concat protocol), as `ffmpeg -i
///   concat:...` reads them: one demuxer, no per-file probing.
/// - Which packets go in and their times in the clip are `ClipCut`'s decision (PipelineCore):
///   from the last keyframe at or before the asked start (`Outcome.snappedBy` says how far
///   before) to the asked end, timestamps that go back shifted to follow on. Frames decoded
///   before the keyframe (B-frames) have negative decode times, which MP4 carries with an edit
///   list, as `ffmpeg -c copy` writes it.
/// - `+faststart` puts the index first, so a browser or a phone plays the file as it downloads.
/// - ADTS audio becomes MP4's AudioSpecificConfig through libavformat's automatic bitstream
///   filter (aac_adtstoasc).
///
/// Blocking: call it on a thread of your own, never on Swift concurrency's pool.
public enum ClipRemuxer {
    public struct Job: Sendable, Equatable {
        /// The segment files, in order.
        public var segments: [String]
        /// Seconds from the start of the first segment.
        public var start: Double
        /// Seconds from the start of the first segment.
        public var end: Double

        public init(segments: [String], start: Double, end: Double) {
            self.segments = segments
            self.start = start
            self.end = end
        }
    }

    public struct Outcome: Sendable, Equatable {
        /// Seconds of media in the clip (the longest stream).
        public var duration: Double
        /// How many seconds before the asked start the clip starts (0 when the start was a keyframe).
        public var snappedBy: Double
        public var bytes: Int
        /// Wall seconds spent opening the segments and the MP4 (stream info, header), and
        /// copying (packets, trailer, the faststart pass): the span `ffmpeg -benchmark` reports.
        public var openingSeconds: Double
        public var copyingSeconds: Double
    }

    /// libavformat's MPEG-TS demuxer. `av_find_input_format` returns a pointer to a constant,
    /// static `AVInputFormat` that libavformat never changes or frees, so sharing it across
    /// threads is sound.
    nonisolated(unsafe) static let transportStream = av_find_input_format("mpegts")

    public static func remux(_ job: Job, to output: String, progress: (Double) -> Void = { _ in }) throws(ClipError) -> Outcome {
        guard !job.segments.isEmpty else { throw ClipError(reason: "no segments to remux") }
        guard job.end > job.start else { throw ClipError(reason: "the clip's end (\(job.end) s) is not after its start (\(job.start) s)") }
        if let odd = job.segments.first(where: { $0.contains("|") }) {
            throw ClipError(reason: "segment path '\(odd)' contains '|', which libavformat's concat protocol cannot read; move the data directory")
        }
        // libavformat's own notes (the faststart pass) are not errors; errors come back as ClipError.
        av_log_set_level(AV_LOG_ERROR)
        let total = job.segments.reduce(Int64(0)) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int64) ?? 0) }
        var writer: Writer?
        do {
            let started = ContinuousClock.now
            let input = try Input(segments: job.segments)
            let made = try Writer(path: output, input: input)
            writer = made
            let opened = ContinuousClock.now
            var cut = ClipCut<ReadPacket>(start: job.start, end: job.end)
            var lastReport = 0.0
            while let packet = try input.next() {
                // Streams the MP4 does not carry (data, subtitles) stay out of the cut too.
                if made.outputIndex(forInput: packet.timing.stream) != nil {
                    try made.write(cut.take(packet, packet.timing))
                    if cut.reachedEnd { break }
                }
                let done = total > 0 ? Double(input.position) / Double(total) : 0
                if done - lastReport >= 0.01 {
                    lastReport = done
                    progress(min(done, 1))
                }
            }
            try made.write(cut.finish())
            try made.finish()
            progress(1)
            guard cut.written > 0 else {
                unlink(output)
                throw ClipError(reason: "the segments hold no packet between \(job.start) s and \(job.end) s")
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
            return Outcome(duration: cut.duration, snappedBy: cut.snappedBy, bytes: size,
                           openingSeconds: (opened - started).inSeconds, copyingSeconds: (ContinuousClock.now - opened).inSeconds)
        } catch let error as ClipError {
            writer?.abandon()
            unlink(output)  // also when the MP4 was created but its header failed
            throw error
        } catch {
            writer?.abandon()
            unlink(output)
            throw ClipError(reason: "\(error)")
        }
    }
}

/// One packet read, with its times in seconds; it owns its AVPacket until it is written.
private final class ReadPacket {
    var packet: UnsafeMutablePointer<AVPacket>?
    let timing: ClipPacketTiming

    /// `follows`: where the stream's previous packet ended, for a packet without timestamps.
    init?(packet: UnsafeMutablePointer<AVPacket>, timeBase: AVRational, isVideo: Bool, follows: Double?) {
        self.packet = packet
        let nopts = sideline_nopts_value()
        let unit = av_q2d(timeBase)
        let time: Double
        let decodeTime: Double
        if packet.pointee.pts == nopts && packet.pointee.dts == nopts {
            // The AAC parser splits a PES packet (several ADTS frames) into frames; only the
            // first carries the PES timestamp, the rest follow it by their durations.
            // (Returned before `timing` is set, so the caller still owns and frees the packet.)
            guard let follows else { return nil }
            time = follows
            decodeTime = follows
        } else {
            let pts = packet.pointee.pts == nopts ? packet.pointee.dts : packet.pointee.pts
            let dts = packet.pointee.dts == nopts ? pts : packet.pointee.dts
            time = Double(pts) * unit
            decodeTime = Double(dts) * unit
        }
        timing = ClipPacketTiming(stream: Int(packet.pointee.stream_index), isVideo: isVideo, isKey: packet.pointee.flags & AV_PKT_FLAG_KEY != 0,
                                  time: time, decodeTime: decodeTime, duration: Double(packet.pointee.duration) * unit)
    }

    deinit {
        av_packet_free(&packet)
    }
}

/// The segments, read as one MPEG-TS stream.
private final class Input {
    private(set) var context: UnsafeMutablePointer<AVFormatContext>?
    private var ends: [Int: Double] = [:]
    private var isVideo: [Bool] = []

    init(segments: [String]) throws {
        let url = "concat:" + segments.joined(separator: "|")
        var opened: UnsafeMutablePointer<AVFormatContext>?
        let result = avformat_open_input(&opened, url, ClipRemuxer.transportStream, nil)
        guard result >= 0, let opened else { throw ClipError(reason: "cannot open segment \(segments[0]): \(FFmpegError.text(for: result))") }
        context = opened
        // H.264's SPS/PPS are in the stream, not in a TS header; this finds them for MP4's avcC.
        // A segment starts with an IDR carrying them, so a fifth of a second is enough to look at.
        // The packets it reads are kept and returned by av_read_frame as usual.
        opened.pointee.max_analyze_duration = 200_000
        try check(avformat_find_stream_info(opened, nil), "avformat_find_stream_info(\(segments[0]))")
        isVideo = (0..<Int(opened.pointee.nb_streams)).map { opened.pointee.streams[$0]!.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO }
    }

    /// Bytes read so far, for progress.
    var position: Int64 {
        guard let pb = context?.pointee.pb else { return 0 }
        return avio_tell(pb)
    }

    /// The next packet with a place on the timeline; nil at the end.
    func next() throws -> ReadPacket? {
        guard let context else { return nil }
        while true {
            guard let packet = av_packet_alloc() else { throw ClipError(reason: "out of memory") }
            let result = av_read_frame(context, packet)
            if result < 0 {
                var pointer: UnsafeMutablePointer<AVPacket>? = packet
                av_packet_free(&pointer)
                if result == sideline_averror_eof() { return nil }
                throw ClipError(reason: "cannot read the segments: \(FFmpegError.text(for: result))")
            }
            let index = Int(packet.pointee.stream_index)
            guard index < isVideo.count,
                  let read = ReadPacket(packet: packet, timeBase: context.pointee.streams[index]!.pointee.time_base, isVideo: isVideo[index], follows: ends[index]) else {
                // A stream that appeared later, or a packet with no time and nothing to follow.
                var pointer: UnsafeMutablePointer<AVPacket>? = packet
                av_packet_free(&pointer)
                continue
            }
            ends[index] = read.timing.time + read.timing.duration
            return read
        }
    }

    deinit {
        avformat_close_input(&context)
    }
}

/// The MP4 being written: one output stream per video or audio stream of the input.
private final class Writer {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    let path: String
    private var map: [Int: Int] = [:]
    private var lastDecodeTick: [Int: Int64] = [:]
    private var scales: [Double] = []

    init(path: String, input: Input) throws {
        self.path = path
        guard let source = input.context else { throw ClipError(reason: "no input") }
        try check(avformat_alloc_output_context2(&context, nil, "mp4", path), "avformat_alloc_output_context2(mp4)")
        guard let output = context else { throw ClipError(reason: "no MP4 muxer") }
        var hasVideo = false
        for index in 0..<Int(source.pointee.nb_streams) {
            let stream = source.pointee.streams[index]!
            let type = stream.pointee.codecpar.pointee.codec_type
            guard type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO else { continue }
            guard let copy = avformat_new_stream(output, nil) else { throw ClipError(reason: "cannot add a stream to the MP4") }
            try check(avcodec_parameters_copy(copy.pointee.codecpar, stream.pointee.codecpar), "avcodec_parameters_copy")
            copy.pointee.codecpar.pointee.codec_tag = 0
            copy.pointee.time_base = stream.pointee.time_base
            map[index] = Int(copy.pointee.index)
            hasVideo = hasVideo || type == AVMEDIA_TYPE_VIDEO
        }
        guard hasVideo else { throw ClipError(reason: "the segments have no video stream") }
        try check(avio_open(&output.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open(\(path))")
        var options: OpaquePointer?
        av_dict_set(&options, "movflags", "+faststart", 0)
        defer { av_dict_free(&options) }
        try check(avformat_write_header(output, &options), "avformat_write_header(mp4)")
        // The muxer chose each stream's time base in write_header.
        scales = (0..<Int(output.pointee.nb_streams)).map { index in
            let base = output.pointee.streams[index]!.pointee.time_base
            return Double(base.den) / Double(base.num)
        }
    }

    func outputIndex(forInput index: Int) -> Int? { map[index] }

    /// Writes what the cut placed, in order.
    func write(_ placed: [ClipCut<ReadPacket>.Placed]) throws {
        for item in placed {
            guard let stream = map[item.packet.timing.stream] else { continue }
            try write(item.packet, stream: stream, presentation: item.presentation, decode: item.decode)
        }
    }

    /// Writes the packet's data (the muxer takes its reference: nothing is copied).
    private func write(_ read: ReadPacket, stream: Int, presentation: Double, decode: Double) throws {
        guard let context, let packet = read.packet else { return }
        let scale = scales[stream]
        var dts = Int64((decode * scale).rounded())
        // MP4 needs decode times that strictly increase. An AAC frame placed by its PES
        // timestamp can land on the tick where the frame before it (placed by duration) ended.
        if let last = lastDecodeTick[stream], dts <= last { dts = last + 1 }
        lastDecodeTick[stream] = dts
        packet.pointee.stream_index = Int32(stream)
        packet.pointee.dts = dts
        packet.pointee.pts = max(Int64((presentation * scale).rounded()), dts)
        packet.pointee.duration = Int64((read.timing.duration * scale).rounded())
        packet.pointee.pos = -1
        try check(av_interleaved_write_frame(context, packet), "av_interleaved_write_frame")
    }

    func finish() throws {
        guard let context else { return }
        try check(av_write_trailer(context), "av_write_trailer")
        close()
    }

    /// Closes and deletes a clip that could not be finished: no torn file is left behind.
    func abandon() {
        close()
        unlink(path)
    }

    private func close() {
        guard let context else { return }
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
        self.context = nil
    }

    deinit { close() }
}
