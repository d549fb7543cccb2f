import Foundation
import HLSPlaylist
@testable import MediaPipeline
import MPEGTS
import SidelineCore
import Testing
import TestSupport

/// The stand-in card, encoded through a variant's own encoders, and the timeline a pipeline
/// continues: judged by ffprobe.
@Suite struct StandInTests {
    static let spec = Rung(name: "180p", width: 320, height: 180, bitrate: 250_000, maxrate: 300_000, bufsize: 500_000, preset: "ultrafast", profile: "main")
    static let audio = AudioSpec(bitrate: 128_000, sampleRate: 48000, channels: 2)

    @Test func standInIsOneSlotOfTheVariantsOwnFormatAndRestampsToAnySlot() async throws {
        let result = try StandInEncoder.encode(spec: Self.spec, frameRate: FrameRate(30), segmentDuration: 2, audio: Self.audio)
        #expect(result.segment.index == 0)
        #expect(abs(result.segment.duration - 2) < 1e-6)
        #expect(result.format.width == 320 && result.format.height == 180)
        #expect(result.format.codecs.count == 2 && result.format.codecs[1] == "mp4a.40.2")
        #expect(result.segment.bytes.first == 0x47 && result.segment.bytes.count % 188 == 0)
        let directory = try makeTemporaryDirectory("stand-in")
        let original = directory + "/stand-in.ts"
        try Data(result.segment.bytes).write(to: URL(fileURLWithPath: original))
        let streams = try await FFprobe.streams(original)
        #expect(streams.contains { $0.codecType == "video" && $0.codecName == "h264" && $0.width == 320 })
        #expect(streams.contains { $0.codecType == "audio" && $0.codecName == "aac" })
        let video = try await FFprobe.packets(original, stream: "v")
        #expect(video.count == 60)
        #expect(video.first?.isKeyframe == true)
        let audio = try await FFprobe.packets(original, stream: "a")
        let start = try #require(video.first?.pts)
        #expect(audio.allSatisfy { $0.pts >= start - 0.001 && $0.pts + 1024.0 / 48000 <= start + 2 + 0.001 }, "the silence stays inside the slot")

        // Slot 7, second copy in a row: every timestamp 14 s later, and it decodes.
        let moved = directory + "/slot7.ts"
        try Data(try TransportStreamRestamp.restamp(result.segment.bytes, by: 14 * 90_000, copy: 1)).write(to: URL(fileURLWithPath: moved))
        let movedVideo = try await FFprobe.packets(moved, stream: "v")
        #expect(zip(video, movedVideo).allSatisfy { abs($1.pts - $0.pts - 14) < 1e-6 })
        #expect(try await Command.run("ffmpeg", ["-v", "error", "-i", moved, "-f", "null", "-"]).status == 0)
    }

    @Test func aFractionalRateStandInNeverOverlapsTheNextSlot() throws {
        let rate = FrameRate(numerator: 30000, denominator: 1001)
        let result = try StandInEncoder.encode(spec: Self.spec, frameRate: rate, segmentDuration: 2, audio: nil)
        let clock = SegmentClock(frameRate: rate, segmentDuration: 2)
        #expect(clock.minimumFramesPerSegment == 59)
        #expect(abs(result.segment.duration - 59 * 1001.0 / 30000) < 1e-4)
        #expect(result.format.codecs.count == 1)
    }

    /// A pipeline started at slot 40 (a restart continuing a recording): its first segment is
    /// slot 40 and its timestamps start 80 s into the stream's timeline, video and audio.
    @Test func aPipelineStartedMidTimelineContinuesTheStreamsTimestamps() async throws {
        let configuration = PipelineRun.configuration(input: Repository.sample, variants: [Self.spec])
        let outcome = try await PipelineRun.run(configuration, startAtSegment: 40)
        let segments = try #require(outcome.segments["180p"])
        #expect(segments.first?.index == 40)
        #expect(segments.map(\.index) == Array(40..<(40 + segments.count)))
        let directory = try makeTemporaryDirectory("mid-timeline")
        let files = try PipelineRun.write(segments, to: directory)
        let video = try await FFprobe.packets(files[0], stream: "v")
        let audio = try await FFprobe.packets(files[0], stream: "a")
        let videoStart = try #require(video.first?.pts)
        let audioStart = try #require(audio.first?.pts)
        // Output time 0 shows as PTS 2.4 s in the segments (SegmentMuxer's offsets).
        #expect(abs(videoStart - (80 + 2.4)) < 0.05, "video starts at \(videoStart)")
        #expect(abs(audioStart - videoStart) < 0.1, "audio starts with the video: \(audioStart)")
    }

    /// On the universal grid a stand-in of a stream this box encodes is no discontinuity
    /// (issue 35: a tag there would be this box's alone, and give the same segment another
    /// Discontinuity Sequence Number on each box of a pair). What makes that true, checked here:
    /// the stand-in carries the rung's own SPS and PPS byte for byte, and restamped onto its
    /// slot, between the rung's own segments, the three decode as one stream, one frame apart.
    /// Both ways a rung is encoded: whole segments (B-frames where the preset has them: veryfast,
    /// high) and with Low-Latency parts (none, slice threads: `VideoEncoder.partParameters`).
    @Test(arguments: [(nil as Double?, "ultrafast", "main"), (nil, "veryfast", "high"), (0.2, "veryfast", "high")])
    func aStandInIsTheRungsOwnCodedFormatOnItsSlotsTimestamps(partDuration: Double?, preset: String, profile: String) async throws {
        let spec = Rung(name: "180p", width: 320, height: 180, bitrate: 250_000, maxrate: 300_000, bufsize: 500_000, preset: preset, profile: profile)
        var configuration = PipelineRun.configuration(input: Repository.sample, variants: [spec])
        configuration.partDuration = partDuration
        let segments = try #require(try await PipelineRun.run(configuration, stopAfterSegments: 3).segments["180p"])
        try #require(segments.count >= 3)
        let standIn = try StandInEncoder.encode(spec: spec, frameRate: configuration.frameRate, segmentDuration: 2, audio: configuration.audio,
                                                framesPerPart: configuration.partClock.map { Int($0.minimumFramesPerPart) })
        let directory = try makeTemporaryDirectory("stand-in-joined")
        let own = try await Self.parameterSets(segments[0].bytes, in: directory, name: "own")
        #expect(own.count == 2, "an SPS and a PPS: \(own.count)")
        #expect(try await Self.parameterSets(standIn.segment.bytes, in: directory, name: "stand-in") == own, "the same SPS and PPS, byte for byte")

        // Slot 1 is the stand-in's: the pipeline's first, the stand-in, the pipeline's third.
        let joined = segments[0].bytes + (try TransportStreamRestamp.restamp(standIn.segment.bytes, by: 2 * 90_000, copy: 0)) + segments[2].bytes
        let path = directory + "/joined.ts"
        try Data(joined).write(to: URL(fileURLWithPath: path))
        // Every frame decodes (a TS continuity counter restarts at each segment, as it does
        // where a player moves between the two boxes' muxers: ffmpeg notes it, no frame is lost).
        let counted = try await Command.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        #expect(counted.stdout.split(whereSeparator: \.isNewline).first == "180", "decoded \(counted.stdout) of 180: \(counted.stderr.suffix(800))")
        let video = try await FFprobe.packets(path, stream: "v").map(\.pts).sorted()
        #expect(video.count == 180, "three slots of 60 frames: \(video.count)")
        let steps = zip(video, video.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { abs($0 - 1.0 / 30) < 0.002 }, "one frame apart throughout: \(Set(steps.map { ($0 * 1000).rounded() }))")
        // Decode order too: the same decode delay on both sides of each seam, so DTS only rises.
        let decode = try await FFprobe.packets(path, stream: "v").compactMap(\.dts)
        #expect(decode.count == 180 && zip(decode, decode.dropFirst()).allSatisfy { $1 > $0 }, "DTS goes back at a seam: \(zip(decode, decode.dropFirst()).filter { $1 <= $0 }.prefix(3).map { "\($0)->\($1)" })")
    }

    /// The SPS and PPS NAL units of the first keyframe of a TS segment's video (`bytes`), as
    /// ffmpeg copies them out into an Annex B stream.
    static func parameterSets(_ bytes: [UInt8], in directory: String, name: String) async throws -> [[UInt8]] {
        let segment = "\(directory)/\(name).ts", elementary = "\(directory)/\(name).h264"
        try Data(bytes).write(to: URL(fileURLWithPath: segment))
        _ = try await Command.run("ffmpeg", ["-v", "error", "-y", "-i", segment, "-map", "0:v:0", "-c:v", "copy", "-frames:v", "1", "-f", "h264", elementary])
        let stream = [UInt8](try Data(contentsOf: URL(fileURLWithPath: elementary)))
        return stream.withUnsafeBufferPointer { AnnexB.nalUnits(in: $0).filter { [7, 8].contains(($0.first ?? 0) & 0x1F) }.map { Array($0) } }
    }
}
