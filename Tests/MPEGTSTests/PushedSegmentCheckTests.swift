import Foundation
import MPEGTS
import Testing

/// The checks of a pushed segment on what real encoders write: ffmpeg's MPEG-TS muxer (SDT
/// first), H.264 with B-frames and HEVC, and the same bytes broken the ways a bad pusher breaks them.
@Suite struct PushedSegmentCheckTests {
    /// Two seconds of the test source at 25 fps, one keyframe a second, from the ffmpeg CLI.
    /// `audio`: an audio encoder for a sine of its own (`aac`, `ac3`...), or none.
    static func encode(_ codec: String, audio: String? = nil) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=128x72:rate=25"] + (audio == nil ? [] : ["-f", "lavfi", "-i", "sine=sample_rate=48000"])
            + ["-t", "2", "-c:v", codec, "-preset", "ultrafast", "-g", "25", "-bf", "2", "-pix_fmt", "yuv420p"] + (audio.map { ["-c:a", $0, "-shortest"] } ?? [])
            + ["-f", "mpegts", "pipe:1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "ffmpeg could not encode with \(codec); run scripts/ensure-deps.sh")
        return [UInt8](bytes)
    }

    static func pid(_ bytes: [UInt8], packet: Int) -> Int { Int(bytes[packet * 188 + 1] & 0x1F) << 8 | Int(bytes[packet * 188 + 2]) }

    @Test(arguments: ["libx264", "libx265"])
    func whatAnEncoderWritesPasses(codec: String) throws {
        let segment = try Self.encode(codec)
        #expect(Self.pid(segment, packet: 0) == 0x11, "ffmpeg's muxer writes its SDT first: the tables' order among themselves is free")
        let inspection = try PushedSegmentCheck.inspect(segment, announced: segment.count).get()
        #expect(abs(inspection.duration - 2.0) < 0.001, "50 frames at 25 fps: \(inspection.duration) s")
        #expect(inspection.firstPTS > 0)
    }

    /// A segment whose timestamps cross the 2^33 wrap (26.5 hours of 90 kHz ticks: a pusher's
    /// own, or a stream's timeline after a day) lasts as long as one that does not, B-frames
    /// before the wrap included; its first PTS is where it starts.
    @Test func aSegmentAcrossTheTimestampWrapMeasuresItsDuration() throws {
        let segment = try Self.encode("libx264")
        let first = try PushedSegmentCheck.inspect(segment).get().firstPTS
        // Moved so the wrap falls one second into the segment.
        let wrapped = try TransportStreamRestamp.restamp(segment, by: (1 << 33) - 90_000 - first)
        let inspection = try PushedSegmentCheck.inspect(wrapped).get()
        #expect(abs(inspection.duration - 2.0) < 0.001, "\(inspection.duration) s")
        #expect(inspection.firstPTS == (1 << 33) - 90_000)
    }

    /// The I-frame playlist lists bytes 0..<keyframeEnd of a pushed segment: the tables and the
    /// whole first access unit, ending where the next video PES begins.
    @Test func theKeyframesBytesEndWhereTheNextVideoFrameBegins() throws {
        let segment = try Self.encode("libx264")
        let inspection = try PushedSegmentCheck.inspect(segment).get()
        let videoStarts = stride(from: 0, to: segment.count, by: 188).filter { Self.pid(segment, packet: $0 / 188) == inspection.videoPID && segment[$0 + 1] & 0x40 != 0 }
        #expect(videoStarts.count == 50, "one PES per frame")
        #expect(inspection.keyframeEnd == videoStarts[1])
    }

    /// Not every muxer sets random_access_indicator: without it, the IDR (H.264 NAL type 5, HEVC
    /// IRAP 16-23) in the first PES is what makes it a keyframe.
    @Test(arguments: ["libx264", "libx265"])
    func aKeyframeIsFoundInTheNALUnitsWithoutTheRandomAccessFlag(codec: String) throws {
        var segment = try Self.encode(codec)
        let video = try PushedSegmentCheck.inspect(segment).get().videoPID
        var cleared = 0
        for offset in stride(from: 0, to: segment.count, by: 188) where Int(segment[offset + 1] & 0x1F) << 8 | Int(segment[offset + 2]) == video {
            // adaptation_field_control has an adaptation field, of non-zero length, with the flag set.
            if segment[offset + 3] & 0x20 != 0, segment[offset + 4] > 0, segment[offset + 5] & 0x40 != 0 {
                segment[offset + 5] &= ~0x40
                cleared += 1
            }
        }
        #expect(cleared > 0, "ffmpeg marks its keyframes: the test clears the marks")
        #expect(throws: Never.self) { try PushedSegmentCheck.inspect(segment).get() }
    }

    @Test func aSegmentCutBetweenKeyframesIsRefused() throws {
        let segment = try Self.encode("libx264")
        let video = try PushedSegmentCheck.inspect(segment).get().videoPID
        // Drop the first video PES (the keyframe): the segment now starts on a P or B frame.
        var out: [UInt8] = []
        var starts = 0
        for offset in stride(from: 0, to: segment.count, by: 188) {
            let pid = Int(segment[offset + 1] & 0x1F) << 8 | Int(segment[offset + 2])
            if pid == video && segment[offset + 1] & 0x40 != 0 { starts += 1 }
            if pid == video && starts == 1 { continue }
            out += segment[offset..<offset + 188]
        }
        #expect(PushedSegmentCheck.inspect(out) == .failure(.firstVideoNotKeyframe))
    }

    @Test func mediaBeforeTheTablesTruncationAndHTMLAreRefused() throws {
        let segment = try Self.encode("libx264")
        let video = try PushedSegmentCheck.inspect(segment).get().videoPID
        let firstMedia = try #require(stride(from: 0, to: segment.count, by: 188).first { Int(segment[$0 + 1] & 0x1F) << 8 | Int(segment[$0 + 2]) == video })
        let mediaFirst = Array(segment[firstMedia..<firstMedia + 188]) + segment[..<firstMedia] + segment[(firstMedia + 188)...]
        guard case .failure(.packets(.notStartingWithProgramTable)) = PushedSegmentCheck.inspect(mediaFirst) else {
            Issue.record("a media packet before the PAT must be refused")
            return
        }
        #expect(PushedSegmentCheck.inspect(Array(segment.dropLast(100))) == .failure(.packets(.partialPacket(size: segment.count - 100))))
        #expect(PushedSegmentCheck.inspect(segment, announced: segment.count + 188) == .failure(.packets(.sizeMismatch(announced: segment.count + 188, received: segment.count))))
        if case .success = PushedSegmentCheck.inspect(Array("<html>502 Bad Gateway</html>".utf8)) { Issue.record("an HTML page is not a segment") }
    }

    @Test func everyRefusalSaysWhatToFix() {
        #expect(PushedSegmentCheck.Failure.firstVideoNotKeyframe.description.contains("keyframe"))
        #expect(PushedSegmentCheck.Failure.noVideoStream.description.contains("H.264"))
    }

    /// What the program map says the segment carries: the video's stream type and the audio's,
    /// for the declared CODECS to be held to (`DeclaredCodecs`).
    @Test(arguments: [("libx264", nil, 0x1B, []), ("libx265", nil, 0x24, []), ("libx264", "aac", 0x1B, [0x0F]), ("libx264", "ac3", 0x1B, [0x81])] as [(String, String?, Int, [Int])])
    func theStreamTypesAreRead(video: String, audio: String?, videoType: Int, audioTypes: [Int]) throws {
        let inspection = try PushedSegmentCheck.inspect(try Self.encode(video, audio: audio)).get()
        #expect(inspection.videoStreamType == videoType)
        #expect(inspection.audioStreamTypes == audioTypes)
    }
}
