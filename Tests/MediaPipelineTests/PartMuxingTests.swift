import Foundation
import HLSPlaylist
@testable import MediaPipeline
import Testing
import TestSupport

/// Low-Latency HLS parts from the real muxer (issue 34, item 2): each part is MPEG-TS that
/// begins with PAT then PMT, a segment is exactly its parts one after another, the parts fall
/// on the part clock, only a segment's first part holds its IDR, and ffmpeg reads a part and a
/// segment made of parts without an error.
@Suite struct PartMuxingTests {
    @Test func aSegmentIsItsPartsOneAfterAnotherAndEachPartStartsWithTheTables() async throws {
        var configuration = PipelineRun.configuration(input: Repository.sample, variants: [StandInTests.spec])
        configuration.partDuration = 0.5
        let clock = try #require(configuration.partClock)
        let outcome = try await PipelineRun.run(configuration, stopAfterSegments: 4)
        let segments = try #require(outcome.segments["180p"])
        let parts = try #require(outcome.parts["180p"])
        #expect(segments.count >= 3)
        for segment in segments {
            let own = parts.filter { $0.segment == segment.index }
            // The last segment is cut short where the run stopped: fewer parts, in order.
            let expected = segment.index == segments.last?.index ? Array(0..<max(own.count, 1)) : Array(0..<clock.partsPerSegment)
            #expect(own.map(\.index) == expected, "segment \(segment.index) has parts \(own.map(\.index))")
            #expect(own.flatMap(\.bytes) == segment.bytes, "segment \(segment.index) is its parts' bytes one after another")
            #expect(abs(own.reduce(0) { $0 + $1.duration } - segment.duration) < 1e-6)
            #expect(own.map(\.independent) == [true] + Array(repeating: false, count: own.count - 1))
            // The segment's IDR lies in its first part.
            let keyframe = try #require(segment.keyframeRanges.first)
            #expect(keyframe.upperBound <= own[0].bytes.count, "the IDR (\(keyframe)) is in the first part (\(own[0].bytes.count) bytes)")
            for part in own {
                let pids = EncodedSegmentHeadersTests.pids(Array(part.bytes.prefix(2 * 188)))
                #expect(pids == [0, 0x1000], "part \(segment.index).\(part.index) starts with \(pids)")
                #expect(part.duration <= clock.partTarget + 1e-6, "part \(segment.index).\(part.index) lasts \(part.duration) s, PART-TARGET \(clock.partTarget)")
                #expect(abs(part.startTime - segment.startTime - Double(clock.firstFrame(ofPart: part.index, inSegment: segment.index)
                    - clock.firstFrame(ofPart: 0, inSegment: segment.index)) / 30) < 1e-6, "part \(segment.index).\(part.index) starts on the part clock")
            }
        }
        // What parts cost in bytes: a PAT and PMT per part, and audio PES cut at each part.
        let whole = try await PipelineRun.run(PipelineRun.configuration(input: Repository.sample, variants: [StandInTests.spec]), stopAfterSegments: 4)
        let compared = min(segments.count, whole.segments["180p"]?.count ?? 0) - 1
        #expect(compared >= 2)
        let withParts = segments.prefix(compared).reduce(0) { $0 + $1.bytes.count }
        let without = (whole.segments["180p"] ?? []).prefix(compared).reduce(0) { $0 + $1.bytes.count }
        let overhead = Double(withParts - without) / Double(without)
        print("parts: \(compared) segments of 180p at 250 kbit/s, \(withParts) bytes in parts of 0.5 s, \(without) whole: \(String(format: "%+.2f", overhead * 100))%")
        #expect(abs(overhead) < 0.05, "parts add tables and cut audio, never a second copy of anything")
        let directory = try makeTemporaryDirectory("parts")
        let second = try #require(parts.first { $0.segment == segments[1].index && $0.index == 2 })
        let partFile = "\(directory)/part.ts"
        try Data(second.bytes).write(to: URL(fileURLWithPath: partFile))
        let files = try PipelineRun.write(segments, to: directory)
        #expect(try await Command.run("ffmpeg", ["-v", "error", "-i", files[1], "-f", "null", "-"]).status == 0)
        let probe = try await Command.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", partFile])
        #expect(probe.status == 0 && probe.stdout.contains("video"), "a part on its own is read as MPEG-TS with its video stream: \(probe.stdout)")
    }

    /// A redundant pair's encoders (`keyframeEveryPart`): every part starts with an IDR, is
    /// listed INDEPENDENT, and ffmpeg decodes each part on its own without an error, which is
    /// what lets a player move to the other box at any part (a part of one IDR per segment
    /// refers to frames of the parts before it).
    @Test func withAKeyframeEveryPartEachPartDecodesOnItsOwn() async throws {
        var configuration = PipelineRun.configuration(input: Repository.sample, variants: [StandInTests.spec])
        configuration.partDuration = 0.5
        configuration.keyframeEveryPart = true
        let clock = try #require(configuration.partClock)
        let outcome = try await PipelineRun.run(configuration, stopAfterSegments: 3)
        let segments = try #require(outcome.segments["180p"])
        let parts = try #require(outcome.parts["180p"]).filter { part in segments.dropLast().contains { $0.index == part.segment } }
        #expect(parts.count >= clock.partsPerSegment * 2)
        #expect(parts.allSatisfy { $0.independent }, "every part INDEPENDENT: \(parts.map { "\($0.segment).\($0.index) \($0.independent)" })")
        #expect(segments.dropLast().allSatisfy { $0.keyframeRanges.count == clock.partsPerSegment }, "one IDR per part: \(segments.map(\.keyframeRanges.count))")
        let directory = try makeTemporaryDirectory("independent-parts")
        for part in parts.prefix(6) {
            let file = "\(directory)/\(part.segment).\(part.index).ts"
            try Data(part.bytes).write(to: URL(fileURLWithPath: file))
            let decoded = try await Command.run("ffmpeg", ["-v", "error", "-i", file, "-map", "0:v:0", "-f", "null", "-"])
            #expect(decoded.status == 0 && decoded.stderr.isEmpty, "part \(part.segment).\(part.index) decodes alone: \(decoded.stderr)")
            let first = try await Command.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags", "-read_intervals", "%+#1", "-of", "csv=p=0", file])
            #expect(first.stdout.hasPrefix("K"), "part \(part.segment).\(part.index) starts with a keyframe: \(first.stdout)")
        }
    }
}
