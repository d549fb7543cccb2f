import CFFmpeg
import Foundation

/// Remuxes recorded MPEG-TS segments into one MP4 file with libavformat: packets are copied,
/// never decoded or encoded, so a minute of 720p takes a fraction of a second.
///
/// - The clip starts on the last video keyframe at or before the asked start (a copy can only
///   start on one; Sideline's segments start with an IDR, so that is at worst the start of the
///   segment holding the asked start) and `ClipOutcome.snappedBy` says how far before.
/// - It ends at the asked end: video packets decoded before it, audio packets starting before it.
/// - Timestamps start at 0. A segment whose timestamps go back (a recording made by an older
///   version across a restart) is shifted to follow the one before, so the MP4 never goes back.
/// - `+faststart` puts the index first, so a browser or a phone plays the file as it downloads.
/// - ADTS audio becomes MP4's AudioSpecificConfig through libavformat's automatic bitstream
///   filter (aac_adtstoasc), as `ffmpeg -c copy` does.
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
    }

    public static func remux(_ job: Job, to output: String, progress: (Double) -> Void = { _ in }) throws(ClipError) -> Outcome {
        guard !job.segments.isEmpty else { throw ClipError(reason: "no segments to remux") }
        guard job.end > job.start else { throw ClipError(reason: "the clip's end (\(job.end) s) is not after its start (\(job.start) s)") }
        let writer: Writer
        do {
            writer = try Writer(path: output, layoutFrom: job.segments[0])
        } catch {
            throw ClipError(reason: "cannot start \(output): \(error)")
        }
        var copy = Copy(job: job)
        do {
            for (index, path) in job.segments.enumerated() {
                let reader = try Reader(path: path)
                try copy.add(reader, first: index == 0, to: writer)
                progress(Double(index + 1) / Double(job.segments.count))
                if copy.reachedEnd { break }
            }
            try writer.finish()
        } catch let error as FFmpegError {
            writer.abandon()
            throw ClipError(reason: "\(error)")
        } catch let error as ClipError {
            writer.abandon()
            throw error
        } catch {
            writer.abandon()
            throw ClipError(reason: "\(error)")
        }
        guard copy.written > 0 else {
            unlink(output)
            throw ClipError(reason: "the segments hold no packet between \(job.start) s and \(job.end) s")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        return Outcome(duration: copy.duration, snappedBy: copy.snappedBy, bytes: size)
    }
}

/// Why a clip could not be made.
public struct ClipError: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { reason }
}

/// The copying: which packets go in, and their new timestamps. Times are kept in seconds
/// relative to the first segment's first video packet, as `Job` states them.
private struct Copy {
    let job: Job
    typealias Job = ClipRemuxer.Job
    /// The input timestamp (seconds) that is 0 in the clip: the chosen keyframe's decode time.
    var origin: Double?
    /// The first segment's first video timestamp: the zero of `job.start` and `job.end`.
    var base: Double?
    /// Added to a segment's timestamps so they follow the previous segment's (usually 0).
    var shift = 0.0
    var lastDecodeTime: [Int: Double] = [:]
    var written = 0
    var duration = 0.0
    var snappedBy = 0.0
    var reachedEnd = false

    init(job: Job) { self.job = job }

    mutating func add(_ reader: Reader, first: Bool, to writer: Writer) throws {
        defer { reader.close() }
        var packets = try reader.packets()
        guard !packets.isEmpty else { return }
        if first {
            guard let firstVideo = packets.first(where: { $0.isVideo }) else { throw ClipError(reason: "the first segment has no video") }
            base = firstVideo.time
            let asked = firstVideo.time + job.start
            // The last keyframe at or before the asked start (or the first keyframe at all).
            let keyframes = packets.indices.filter { packets[$0].isVideo && packets[$0].isKey }
            guard let firstKey = keyframes.first else { throw ClipError(reason: "the first segment has no video keyframe") }
            let chosen = keyframes.last(where: { packets[$0].time <= asked + 0.0005 }) ?? firstKey
            let keyTime = packets[chosen].time
            snappedBy = max(0, asked - keyTime)
            origin = packets[chosen].decodeTime
            // Video from the keyframe on (in decode order); audio from the keyframe's time on,
            // wherever the muxer put it in the file (audio that starts before the picture
            // would play over nothing).
            packets = packets.filter { $0.isVideo ? $0.index >= chosen : $0.time >= keyTime }
        } else if let lastVideo = lastDecodeTime[writer.videoIndex], let firstVideo = packets.first(where: { $0.isVideo }),
                  firstVideo.decodeTime + shift <= lastVideo {
            // Timestamps went back: follow on one frame after the previous segment's last.
            shift += lastVideo - (firstVideo.decodeTime + shift) + max(firstVideo.duration, 0.001)
        }
        guard let origin, let base else { return }
        let end = base + job.end
        for packet in packets {
            // Whatever starts at or after the end stays out (half a millisecond absorbs
            // rounding), except a video frame decoded before the end: frames shown before the
            // end may refer to it.
            if packet.time + shift >= end - 0.0005 && (!packet.isVideo || packet.decodeTime + shift >= end - 0.0005) {
                if packet.isVideo { reachedEnd = true }
                continue
            }
            guard let output = writer.outputIndex(forInput: packet.stream) else { continue }
            let decode = packet.decodeTime + shift - origin
            lastDecodeTime[output] = packet.decodeTime + shift
            try writer.write(packet, stream: output, presentation: packet.time + shift - origin, decode: decode)
            written += 1
            duration = max(duration, packet.time + shift - origin + packet.duration)
        }
    }
}

/// One packet read from a segment, with its times in seconds.
private final class ReadPacket {
    let packet: UnsafeMutablePointer<AVPacket>
    let stream: Int
    let isVideo: Bool
    let isKey: Bool
    let time: Double
    let decodeTime: Double
    let duration: Double
    /// Its position in the segment's read order.
    let index: Int

    init(packet: UnsafeMutablePointer<AVPacket>, timeBase: AVRational, isVideo: Bool, index: Int) {
        self.packet = packet
        self.stream = Int(packet.pointee.stream_index)
        self.isVideo = isVideo
        self.isKey = packet.pointee.flags & AV_PKT_FLAG_KEY != 0
        let nopts = sideline_nopts_value()
        let pts = packet.pointee.pts == nopts ? packet.pointee.dts : packet.pointee.pts
        let dts = packet.pointee.dts == nopts ? pts : packet.pointee.dts
        self.time = Double(pts) * av_q2d(timeBase)
        self.decodeTime = Double(dts) * av_q2d(timeBase)
        self.duration = Double(packet.pointee.duration) * av_q2d(timeBase)
        self.index = index
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&pointer)
    }
}

/// A segment file opened for reading.
private final class Reader {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    let path: String

    init(path: String) throws {
        self.path = path
        var opened: UnsafeMutablePointer<AVFormatContext>?
        let result = avformat_open_input(&opened, path, nil, nil)
        guard result >= 0, let opened else { throw ClipError(reason: "cannot open segment \(path): \(FFmpegError.text(for: result))") }
        context = opened
    }

    /// Every packet of the segment, in file order. A segment is one or two seconds of media,
    /// so holding it costs about a megabyte and lets the start keyframe be chosen by looking ahead.
    func packets() throws -> [ReadPacket] {
        guard let context else { return [] }
        var read: [ReadPacket] = []
        while true {
            guard let packet = av_packet_alloc() else { throw ClipError(reason: "out of memory reading \(path)") }
            let result = av_read_frame(context, packet)
            if result < 0 {
                var pointer: UnsafeMutablePointer<AVPacket>? = packet
                av_packet_free(&pointer)
                if result == sideline_averror_eof() { break }
                throw ClipError(reason: "cannot read segment \(path): \(FFmpegError.text(for: result))")
            }
            let stream = context.pointee.streams[Int(packet.pointee.stream_index)]!
            guard packet.pointee.pts != sideline_nopts_value() || packet.pointee.dts != sideline_nopts_value() else {
                var pointer: UnsafeMutablePointer<AVPacket>? = packet
                av_packet_free(&pointer)
                continue
            }
            read.append(ReadPacket(packet: packet, timeBase: stream.pointee.time_base, isVideo: stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO,
                                   index: read.count))
        }
        return read
    }

    func close() {
        avformat_close_input(&context)
    }

    deinit { close() }
}

/// The MP4 being written: one output stream per video or audio stream of the first segment.
private final class Writer {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    let path: String
    private var map: [Int: Int] = [:]
    private(set) var videoIndex = -1
    private var headerWritten = false

    init(path: String, layoutFrom firstSegment: String) throws {
        self.path = path
        // The layout (codecs, extradata) comes from the first segment's streams.
        var probe: UnsafeMutablePointer<AVFormatContext>?
        let opened = avformat_open_input(&probe, firstSegment, nil, nil)
        guard opened >= 0, let input = probe else { throw ClipError(reason: "cannot open segment \(firstSegment): \(FFmpegError.text(for: opened))") }
        defer { avformat_close_input(&probe) }
        // H.264's SPS/PPS are in the stream, not in a TS header; this finds them for MP4's avcC.
        try check(avformat_find_stream_info(input, nil), "avformat_find_stream_info(\(firstSegment))")
        try check(avformat_alloc_output_context2(&context, nil, "mp4", path), "avformat_alloc_output_context2(mp4)")
        guard let output = context else { throw ClipError(reason: "no MP4 muxer") }
        for index in 0..<Int(input.pointee.nb_streams) {
            let source = input.pointee.streams[index]!
            let type = source.pointee.codecpar.pointee.codec_type
            guard type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO else { continue }
            guard let stream = avformat_new_stream(output, nil) else { throw ClipError(reason: "cannot add a stream to the MP4") }
            try check(avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar), "avcodec_parameters_copy")
            stream.pointee.codecpar.pointee.codec_tag = 0
            stream.pointee.time_base = source.pointee.time_base
            map[index] = Int(stream.pointee.index)
            if type == AVMEDIA_TYPE_VIDEO && videoIndex < 0 { videoIndex = Int(stream.pointee.index) }
        }
        guard videoIndex >= 0 else { throw ClipError(reason: "segment \(firstSegment) has no video stream") }
        try check(avio_open(&output.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open(\(path))")
        var options: OpaquePointer?
        av_dict_set(&options, "movflags", "+faststart", 0)
        defer { av_dict_free(&options) }
        try check(avformat_write_header(output, &options), "avformat_write_header(mp4)")
        headerWritten = true
    }

    func outputIndex(forInput index: Int) -> Int? { map[index] }

    func write(_ packet: ReadPacket, stream: Int, presentation: Double, decode: Double) throws {
        guard let context else { return }
        let timeBase = context.pointee.streams[stream]!.pointee.time_base
        let scale = Double(timeBase.den) / Double(timeBase.num)
        guard let copy = av_packet_clone(packet.packet) else { throw ClipError(reason: "out of memory") }
        var pointer: UnsafeMutablePointer<AVPacket>? = copy
        defer { av_packet_free(&pointer) }
        copy.pointee.stream_index = Int32(stream)
        copy.pointee.pts = Int64((presentation * scale).rounded())
        copy.pointee.dts = Int64((decode * scale).rounded())
        copy.pointee.duration = Int64((packet.duration * scale).rounded())
        copy.pointee.pos = -1
        try check(av_interleaved_write_frame(context, copy), "av_interleaved_write_frame")
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
