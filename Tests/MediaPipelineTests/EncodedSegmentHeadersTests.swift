import Foundation
import HLSPlaylist
@testable import MediaPipeline
import Testing
import TestSupport

/// The real muxer: every segment of a real encode starts with the PAT, then the PMT
/// (`TransportStreamHeaders.patFirst`, tested on its own in MPEGTSTests).
@Suite struct EncodedSegmentHeadersTests {
    static func pids(_ bytes: [UInt8]) -> [Int] {
        stride(from: 0, to: bytes.count, by: 188).map { Int(bytes[$0 + 1] & 0x1F) << 8 | Int(bytes[$0 + 2]) }
    }

    /// The real muxer: every segment of a real encode starts with the PAT, then the PMT.
    @Test func everyEncodedSegmentStartsWithPATThenPMT() async throws {
        let configuration = PipelineRun.configuration(input: Repository.sample, variants: [StandInTests.spec])
        let outcome = try await PipelineRun.run(configuration, stopAfterSegments: 4)
        let segments = try #require(outcome.segments["180p"])
        #expect(segments.count >= 3)
        for segment in segments {
            let pids = Self.pids(Array(segment.bytes.prefix(3 * 188)))
            #expect(pids.first == 0 && pids.dropFirst().first == 0x1000, "segment \(segment.index) starts with \(pids)")
        }
        let directory = try makeTemporaryDirectory("pat-first")
        let files = try PipelineRun.write(segments, to: directory)
        #expect(try await Command.run("ffmpeg", ["-v", "error", "-i", files[1], "-f", "null", "-"]).status == 0)
    }
}
