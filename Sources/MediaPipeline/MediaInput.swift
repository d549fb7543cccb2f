import CFFmpeg
import Foundation
import HLSPlaylist
import PipelineCore

/// The demuxer: opens the input with libavformat, picks its best video stream (required) and
/// best audio stream (optional), and reads packets. Owned by the input thread.
/// An opened libavformat input: demuxer context, open and read timeouts, rewinding.
/// `MediaInput` (video, and audio if any) and `AudioInput` (audio only) are built on it.
/// Owned by the thread that reads it.
final class InputContainer {
    let input: String
    let kind: InputKind
    private(set) var context: UnsafeMutablePointer<AVFormatContext>?
    private let deadline: InterruptDeadline
    /// Options given for the input that libavformat did not use (probably misspelt).
    private(set) var unusedOptions: [String] = []
    /// How long a read may wait for the next packet; the open timeout when nil. A live input
    /// that reconnects counts as lost after a shorter silence (`stream.loss_timeout`).
    var readTimeout: Duration?

    init(input: String, kind override: InputKind? = nil, timeout: Double, deadline: InterruptDeadline, frameRate: FrameRate, options given: [String: String]) throws(PipelineError) {
        self.input = input
        let kind = override ?? InputKind(classifying: input)
        self.kind = kind
        self.deadline = deadline
        Self.registerDevicesOnce

        var path = input
        var format: UnsafePointer<AVInputFormat>?
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        switch kind {
        case let .file(filePath):
            guard FileManager.default.fileExists(atPath: filePath) else { throw .inputFileMissing(input: input) }
        case let .device(formatName, devicePath):
            path = devicePath
            if !formatName.isEmpty { format = av_find_input_format(formatName) }
            guard !devicePath.hasPrefix("/") || FileManager.default.fileExists(atPath: devicePath) else {
                throw .inputUnopenable(input: input, reason: "no such device", hint: kind.openFailureHint)
            }
        case .testPattern:
            path = TestPattern.filterGraph(frameRate: frameRate)
            format = av_find_input_format("lavfi")
        case let .slate(width, height):
            path = Slate.filterGraph(width: width, height: height, frameRate: frameRate)
            format = av_find_input_format("lavfi")
        case let .standInCard(width, height):
            path = Slate.standInGraph(width: width, height: height, frameRate: frameRate)
            format = av_find_input_format("lavfi")
        case .url:
            // Socket-level timeouts where the protocol has them; the interrupt callback covers the rest.
            let micros = String(Int64(timeout * 1_000_000))
            av_dict_set(&options, "rw_timeout", micros, 0)
            if input.hasPrefix("rtsp") { av_dict_set(&options, "timeout", micros, 0) }
        }
        for (key, value) in given.sorted(by: { $0.key < $1.key }) { av_dict_set(&options, key, value, 0) }

        guard let allocated = avformat_alloc_context() else { throw .internalFailure("avformat_alloc_context returned NULL") }
        deadline.install(on: allocated)
        var opened: UnsafeMutablePointer<AVFormatContext>? = allocated
        deadline.arm()
        let openResult = avformat_open_input(&opened, path, format, &options)
        let timedOut = deadline.shouldInterrupt
        deadline.disarm()
        guard openResult >= 0, let opened else {
            // avformat_open_input frees the context on failure.
            let reason = deadline.isCancelled ? "stopped while opening"
                : timedOut ? "nothing usable arrived within the input timeout (\(DecimalFormat.compact(timeout)) s, stream.input_timeout)"
                : FFmpegError.text(for: openResult)
            throw .inputUnopenable(input: input, reason: reason, hint: kind.openFailureHint)
        }
        self.context = opened
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = av_dict_get(options, "", entry, AV_DICT_IGNORE_SUFFIX) {
            let key = String(cString: next.pointee.key)
            if given[key] != nil { unusedOptions.append(key) }
            entry = next
        }

        deadline.arm()
        let infoResult = avformat_find_stream_info(opened, nil)
        let infoTimedOut = deadline.shouldInterrupt
        deadline.disarm()
        if infoResult < 0 {
            avformat_close_input(&context)
            let reason = infoTimedOut ? "no stream information within the input timeout (\(DecimalFormat.compact(timeout)) s, stream.input_timeout)"
                : "cannot read stream information: \(FFmpegError.text(for: infoResult))"
            throw .inputUnopenable(input: input, reason: reason, hint: kind.openFailureHint)
        }
    }

    deinit { avformat_close_input(&context) }

    private static let registerDevicesOnce: Void = { avdevice_register_all() }()


    /// The streams of the input, as "video h264" etc., for messages.
    var streamSummary: [String] {
        guard let context else { return [] }
        return (0..<Int(context.pointee.nb_streams)).compactMap { i -> String? in
            guard let s = context.pointee.streams[i], let p = s.pointee.codecpar else { return nil }
            let type = av_get_media_type_string(p.pointee.codec_type).map { String(cString: $0) } ?? "unknown"
            return "\(type) \(String(cString: avcodec_get_name(p.pointee.codec_id)))"
        }
    }

    /// The best stream of `type`, if any (related to `related` when given).
    func bestStream(_ type: AVMediaType, related: Int32 = -1) -> UnsafeMutablePointer<AVStream>? {
        guard let context else { return nil }
        let index = av_find_best_stream(context, type, -1, related, nil, 0)
        return index >= 0 ? context.pointee.streams[Int(index)] : nil
    }

    /// Only the given streams are demuxed.
    func discardAll(except kept: [Int32]) {
        guard let context else { return }
        for i in 0..<Int(context.pointee.nb_streams) where !kept.contains(Int32(i)) {
            context.pointee.streams[i]?.pointee.discard = AVDISCARD_ALL
        }
    }

    func timeBase(ofStream index: Int32) -> AVRational? {
        guard let context, index >= 0, index < Int32(context.pointee.nb_streams) else { return nil }
        return context.pointee.streams[Int(index)]?.pointee.time_base
    }

    /// Reads the next packet of a chosen stream. Returns false at the end of the input.
    /// A live input that delivers nothing within the timeout fails with `readFailed`.
    func read(into packet: UnsafeMutablePointer<AVPacket>) throws(PipelineError) -> Bool {
        while true {
            deadline.arm(for: readTimeout ?? deadline.timeout)
            let result = av_read_frame(context, packet)
            deadline.disarm()
            if result == sideline_averror_eof() { return false }
            if result == sideline_averror_eagain() { continue }
            if result < 0 {
                if deadline.isCancelled { return false }
                let reason = deadline.shouldInterrupt || result == sideline_averror_exit()
                    ? "no data for the read timeout" : FFmpegError.text(for: result)
                throw .readFailed(input: input, reason: reason)
            }
            return true
        }
    }

    /// Goes back to the start, for looping a file.
    func rewind() throws(PipelineError) {
        let result = av_seek_frame(context, -1, context?.pointee.start_time == sideline_nopts_value() ? 0 : context!.pointee.start_time, AVSEEK_FLAG_BACKWARD)
        if result < 0 { throw .readFailed(input: input, reason: "cannot seek back to the start to loop: \(FFmpegError.text(for: result))") }
    }
}

/// The demuxer of the main input: its best video stream (required) and best audio stream
/// (optional, and left out when a separate audio input is given). Owned by the input thread.
final class MediaInput {
    let container: InputContainer
    let video: StreamDecoder
    let audio: StreamDecoder?
    let videoStream: UnsafeMutablePointer<AVStream>

    var input: String { container.input }
    var kind: InputKind { container.kind }
    var unusedOptions: [String] { container.unusedOptions }

    init(input: String, kind: InputKind? = nil, timeout: Double, deadline: InterruptDeadline, frameRate: FrameRate = FrameRate(30), options: [String: String] = [:],
         withAudio: Bool = true) throws(PipelineError) {
        container = try InputContainer(input: input, kind: kind, timeout: timeout, deadline: deadline, frameRate: frameRate, options: options)
        guard let stream = container.bestStream(AVMEDIA_TYPE_VIDEO) else {
            throw .noVideoStream(input: input, found: container.streamSummary)
        }
        videoStream = stream
        video = try StreamDecoder(stream: stream, input: input)
        if withAudio, let audioStream = container.bestStream(AVMEDIA_TYPE_AUDIO, related: stream.pointee.index) {
            // An audio codec we cannot decode is not fatal: the stream goes on without sound.
            audio = try? StreamDecoder(stream: audioStream, input: input)
        } else {
            audio = nil
        }
        container.discardAll(except: [video.streamIndex] + (audio.map { [$0.streamIndex] } ?? []))
    }

    func read(into packet: UnsafeMutablePointer<AVPacket>) throws(PipelineError) -> Bool {
        try container.read(into: packet)
    }

    /// Goes back to the start, for looping a file.
    func rewind() throws(PipelineError) {
        try container.rewind()
        video.reset()
        audio?.reset()
    }
    /// The container's own frame-rate guess for the video stream, for the console.
    var nominalFrameRate: Double {
        let rate = videoStream.pointee.avg_frame_rate
        return rate.den > 0 ? av_q2d(rate) : 0
    }
}

/// A separate audio input (`stream.audio_input`), such as an ALSA capture device next to a
/// V4L2 camera: its best audio stream, read on a thread of its own.
final class AudioInput {
    let container: InputContainer
    let audio: StreamDecoder

    init(input: String, timeout: Double, deadline: InterruptDeadline, options: [String: String]) throws(PipelineError) {
        container = try InputContainer(input: input, timeout: timeout, deadline: deadline, frameRate: FrameRate(30), options: options)
        guard let stream = container.bestStream(AVMEDIA_TYPE_AUDIO) else {
            throw .noAudioStream(input: input, found: container.streamSummary)
        }
        audio = try StreamDecoder(stream: stream, input: input)
        container.discardAll(except: [audio.streamIndex])
    }
}
