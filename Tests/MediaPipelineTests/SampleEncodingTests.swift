import Foundation
import HLSPlaylist
@testable import MediaPipeline
import Testing
import TestSupport

/// The real pipeline on the real sample, judged by ffprobe. The sample is encoded once for
/// the whole suite (as fast as the machine allows) and every test reads that one result.
@Suite(.serialized) struct SampleEncodingTests {
    struct Encoded: Sendable {
        let outcome: PipelineRun.Outcome
        /// The 720p segments as files.
        let files: [String]
        /// The 360p segments as files.
        let lowFiles: [String]
    }

    /// A two-rung ladder, so the same run also proves the variants stay aligned.
    static let encoded = Task<Encoded, any Error> {
        let outcome = try await PipelineRun.run(PipelineRun.configuration(input: Repository.sample, variants: [.test720p, .test360p]))
        let directory = try makeTemporaryDirectory("sample-encoding")
        try FileManager.default.createDirectory(atPath: directory + "/720p", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/360p", withIntermediateDirectories: true)
        let files = try PipelineRun.write(outcome.segments["720p"] ?? [], to: directory + "/720p")
        let lowFiles = try PipelineRun.write(outcome.segments["360p"] ?? [], to: directory + "/360p")
        return Encoded(outcome: outcome, files: files, lowFiles: lowFiles)
    }

    let frame = 1.0 / 30

    @Test func theWholeSampleBecomesTwoSecondSegments() async throws {
        let encoded = try await Self.encoded.value
        let segments = try #require(encoded.outcome.segments["720p"])
        #expect(encoded.outcome.failures.isEmpty)
        #expect(encoded.outcome.endOfStream == true)
        // 24 s of media in 2 s segments.
        #expect(segments.count == 12)
        #expect(segments.map(\.index) == Array(0..<12))
        for segment in segments.dropLast() {
            #expect(abs(segment.duration - 2) <= frame + 1e-6, "segment \(segment.index) lasts \(segment.duration) s")
        }
        #expect(segments.last!.duration <= 2 + frame)
        #expect(abs(segments.reduce(0) { $0 + $1.duration } - 24) <= frame)
        #expect(encoded.outcome.statistics.corruptPackets == 0)
    }

    @Test func everySegmentStartsWithAKeyframeOnTheGrid() async throws {
        let encoded = try await Self.encoded.value
        let segments = try #require(encoded.outcome.segments["720p"])
        var firstPTS: [Double] = []
        for (segment, file) in zip(segments, encoded.files) {
            let video = try await FFprobe.packets(file, stream: "v")
            let first = try #require(video.first, "segment \(segment.index) has video")
            #expect(first.isKeyframe, "segment \(segment.index) must start with a keyframe")
            #expect(video.filter(\.isKeyframe).count == 1, "exactly one IDR per segment (no scene-cut or source keyframes)")
            firstPTS.append(video.map(\.pts).min()!)
            // ffprobe's count of frames agrees with the duration the playlist will carry.
            #expect(abs(Double(video.count) * frame - segment.duration) < 1e-6)
        }
        // Segment k starts exactly at k x D after segment 0 (the output timeline's grid),
        // and each segment's first PTS is the previous one's plus its duration: continuous.
        for k in 1..<firstPTS.count {
            #expect(abs(firstPTS[k] - firstPTS[0] - Double(k) * 2) < 0.001, "segment \(k) starts at \(firstPTS[k] - firstPTS[0])")
            #expect(abs(firstPTS[k] - firstPTS[k - 1] - segments[k - 1].duration) < 0.001)
        }
    }

    @Test func segmentsCarryH264HighAndStereoAACAndDecodeCleanly() async throws {
        let encoded = try await Self.encoded.value
        for file in encoded.files {
            let streams = try await FFprobe.streams(file)
            let video = try #require(streams.first { $0.codecType == "video" })
            #expect(video.codecName == "h264")
            #expect(video.profile == "High")
            #expect(video.width == 1280 && video.height == 720)
            let audio = try #require(streams.first { $0.codecType == "audio" })
            #expect(audio.codecName == "aac")
            #expect(audio.channels == 2)
            // Each segment decodes on its own: PAT/PMT and SPS/PPS come first.
            #expect(try await FFprobe.decodeErrors(file) == "")
        }
    }

    @Test func audioStaysWithItsVideo() async throws {
        let encoded = try await Self.encoded.value
        for file in encoded.files {
            let video = try await FFprobe.packets(file, stream: "v")
            let audio = try await FFprobe.packets(file, stream: "a")
            let start = video.map(\.pts).min()!
            let end = video.map(\.pts).max()! + frame
            #expect(!audio.isEmpty)
            // Every audio frame of a segment starts inside that segment's video span
            // (one AAC frame, 21 ms, of slack at the edges).
            #expect(audio.allSatisfy { $0.pts >= start - 0.022 && $0.pts < end + 0.022 }, "\(file)")
        }
    }

    /// Each segment's one IDR is located by byte range, and that range alone decodes to a
    /// keyframe: what an I-frame playlist entry points at.
    @Test func keyframeRangesDecodeOnTheirOwn() async throws {
        let encoded = try await Self.encoded.value
        let segments = try #require(encoded.outcome.segments["720p"])
        let directory = try makeTemporaryDirectory("iframes")
        for segment in segments.prefix(4) {
            #expect(segment.keyframeRanges.count == 1)
            let range = try #require(segment.keyframeRanges.first)
            #expect(range.lowerBound == 0, "the range starts with the segment's PAT/PMT")
            #expect(range.count % 188 == 0 && range.count < segment.bytes.count)
            let path = directory + "/iframe-\(segment.index).ts"
            try Data(segment.bytes[range]).write(to: URL(fileURLWithPath: path))
            let video = try await FFprobe.packets(path, stream: "v")
            #expect(video.count == 1 && video[0].isKeyframe, "segment \(segment.index): \(video)")
            #expect(try await FFprobe.decodeErrors(path) == "")
        }
    }

    /// Segment k of every variant covers the same media, so a player can switch at any segment.
    @Test func variantsOfTheLadderStayAligned() async throws {
        let encoded = try await Self.encoded.value
        let high = try #require(encoded.outcome.segments["720p"])
        let low = try #require(encoded.outcome.segments["360p"])
        #expect(high.count == low.count)
        #expect(zip(high, low).allSatisfy { $0.index == $1.index && abs($0.startTime - $1.startTime) < 1e-9 && abs($0.duration - $1.duration) < 1e-9 })
        for (highFile, lowFile) in zip(encoded.files, encoded.lowFiles) {
            let highKeys = try await FFprobe.packets(highFile, stream: "v").filter(\.isKeyframe).map(\.pts)
            let lowKeys = try await FFprobe.packets(lowFile, stream: "v").filter(\.isKeyframe).map(\.pts)
            #expect(highKeys == lowKeys, "keyframes at the same PTS in \(highFile) and \(lowFile)")
            let lowVideo = try #require(try await FFprobe.streams(lowFile).first { $0.codecType == "video" })
            #expect(lowVideo.width == 640 && lowVideo.height == 360 && lowVideo.profile == "Main")
        }
        #expect(encoded.outcome.formats["360p"]?.codecs.first?.hasPrefix("avc1.4d") == true, "Main profile is profile_idc 77 = 0x4d")
    }

    @Test func formatReportComesFromTheRealSPS() async throws {
        let encoded = try await Self.encoded.value
        let format = try #require(encoded.outcome.formats["720p"])
        #expect(format.codecs.count == 2)
        #expect(format.codecs[0].hasPrefix("avc1.64"), "High profile is profile_idc 100 = 0x64: \(format.codecs[0])")
        #expect(format.codecs[1] == "mp4a.40.2")
        let level = try await FFprobe.streams(encoded.files[0]).first { $0.codecType == "video" }?.level
        #expect(format.codecs[0].suffix(2) == String(format: "%02x", level ?? -1), "level_idc in CODECS matches the stream")
        #expect(format.width == 1280 && format.height == 720 && format.frameRate == 30)
    }
}
