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
}
