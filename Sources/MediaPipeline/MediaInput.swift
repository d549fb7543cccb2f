import CFFmpeg
import Foundation

/// The demuxer: opens the input with libavformat, picks its best video stream (required) and
/// best audio stream (optional), and reads packets. Owned by the input thread.
final class MediaInput {
    let input: String
    let kind: InputKind
    let video: StreamDecoder
    let audio: StreamDecoder?
    let videoStream: UnsafeMutablePointer<AVStream>
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let deadline: InterruptDeadline

    /// Options given for the input that libavformat did not use (probably misspelt).
    private(set) var unusedOptions: [String] = []

    init(input: String, timeout: Double, deadline: InterruptDeadline, frameRate: FrameRate = FrameRate(30), options given: [String: String] = [:]) throws(PipelineError) {
        self.input = input
        self.kind = InputKind(classifying: input)
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
            guard FileManager.default.fileExists(atPath: devicePath) else {
                throw .inputUnopenable(input: input, reason: "no such device", hint: kind.openFailureHint)
            }
        case .testPattern:
            path = TestPattern.filterGraph(frameRate: frameRate)
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
                : timedOut ? "nothing usable arrived within the input timeout (\(Self.seconds(timeout)) s, stream.input_timeout)"
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
            let reason = infoTimedOut ? "no stream information within the input timeout (\(Self.seconds(timeout)) s, stream.input_timeout)"
                : "cannot read stream information: \(FFmpegError.text(for: infoResult))"
            throw .inputUnopenable(input: input, reason: reason, hint: kind.openFailureHint)
        }

        let videoIndex = av_find_best_stream(opened, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard videoIndex >= 0, let stream = opened.pointee.streams[Int(videoIndex)] else {
            let found = (0..<Int(opened.pointee.nb_streams)).compactMap { i -> String? in
                guard let s = opened.pointee.streams[i], let p = s.pointee.codecpar else { return nil }
                let type = av_get_media_type_string(p.pointee.codec_type).map { String(cString: $0) } ?? "unknown"
                return "\(type) \(String(cString: avcodec_get_name(p.pointee.codec_id)))"
            }
            avformat_close_input(&context)
            throw .noVideoStream(input: input, found: found)
        }
        videoStream = stream
        do {
            video = try StreamDecoder(stream: stream, input: input)
            let audioIndex = av_find_best_stream(opened, AVMEDIA_TYPE_AUDIO, -1, videoIndex, nil, 0)
            if audioIndex >= 0, let audioStream = opened.pointee.streams[Int(audioIndex)] {
                // An audio codec we cannot decode is not fatal: the stream goes on without sound.
                audio = try? StreamDecoder(stream: audioStream, input: input)
            } else {
                audio = nil
            }
        } catch {
            avformat_close_input(&context)
            throw error
        }
        // Only the chosen streams are demuxed.
        for i in 0..<Int(opened.pointee.nb_streams) {
            let index = Int32(i)
            if index != video.streamIndex && index != audio?.streamIndex {
                opened.pointee.streams[i]?.pointee.discard = AVDISCARD_ALL
            }
        }
    }

    deinit { avformat_close_input(&context) }

    private static let registerDevicesOnce: Void = { avdevice_register_all() }()

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// Reads the next packet of a chosen stream. Returns false at the end of the input.
    /// A live input that delivers nothing within the timeout fails with `readFailed`.
    func read(into packet: UnsafeMutablePointer<AVPacket>) throws(PipelineError) -> Bool {
        while true {
            deadline.arm()
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
        video.reset()
        audio?.reset()
    }

    /// The container's own frame-rate guess for the video stream, for the console.
    var nominalFrameRate: Double {
        let rate = videoStream.pointee.avg_frame_rate
        return rate.den > 0 ? av_q2d(rate) : 0
    }
}
