import Foundation
import HLSPlaylist
@testable import MediaPipeline
import SidelineCore
import Testing
import TestSupport

/// The test pattern's clock survives the real pipeline: a few seconds of `testpattern` at the
/// smallest rung, each segment decoded by the ffmpeg CLI to grey frames, and the clock read
/// back from every frame with `PatternClock`.
@Suite struct PatternClockPipelineTests {
    static let smallest = Rung(name: "144p", width: 256, height: 144, bitrate: 150_000, maxrate: 165_000, bufsize: 300_000, preset: "ultrafast", profile: "main")

    @Test func everyDecodedFrameCarriesItsCaptureTime() async throws {
        var configuration = PipelineRun.configuration(input: "testpattern", variants: [Self.smallest])
        configuration.realtime = true
        configuration.segmentDuration = 1
        let started = Date()
        let outcome = try await PipelineRun.run(configuration, stopAfterSegments: 2, timeout: 60)
        let finished = Date()
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        let segments = try #require(outcome.segments["144p"])
        #expect(segments.count >= 2)
        let directory = try makeTemporaryDirectory("pattern-clock")
        let frameBytes = 256 * 144
        var clocks: [Int64] = []
        for (segment, file) in zip(segments, try PipelineRun.write(segments, to: directory)) {
            let raw = file + ".gray"
            let result = try await Command.run("ffmpeg", ["-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "gray", "-y", raw])
            #expect(result.status == 0, "\(result.stderr)")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
            let frames = bytes.count / frameBytes
            // A full 1 s segment holds 30 frames; the last one is cut short by the stop.
            #expect(bytes.count % frameBytes == 0 && (frames == 30 || segment.index == segments.last?.index), "segment \(segment.index): \(bytes.count) bytes")
            let read = (0..<frames).map { n in
                PatternClock.read(luma: bytes[(n * frameBytes)..<((n + 1) * frameBytes)], width: 256, height: 144, stride: 256)
            }
            #expect(read.allSatisfy { $0 != nil }, "segment \(segment.index): unreadable frames \(read.indices.filter { read[$0] == nil })")
            // The segment's first frame was captured when its EXT-X-PROGRAM-DATE-TIME says.
            let programDateTime = Int64((segment.programDateTime.timeIntervalSince1970 * 1000).rounded())
            if let first = read.first, let first {
                #expect(abs(first - programDateTime) <= 1, "segment \(segment.index): clock \(first), program date-time \(programDateTime)")
            }
            clocks += read.compactMap { $0 }
        }
        // Within the run's wall-clock span, and one frame (33.3 ms) apart, give or take the
        // pacing's scheduling jitter: steps of 29-38 ms were seen on an idle box (2026-11-27);
        // under the suite's load a late frame is followed by quick ones, so single steps get
        // room while the median and the mean stay tight.
        let span = Int64(started.timeIntervalSince1970 * 1000)...Int64(finished.timeIntervalSince1970 * 1000)
        #expect(clocks.allSatisfy { span.contains($0) }, "clocks \(clocks.first ?? 0)...\(clocks.last ?? 0) outside \(span)")
        let steps = zip(clocks.dropFirst(), clocks).map { $0 - $1 }
        #expect(steps.allSatisfy { $0 >= 0 && $0 <= 250 }, "steps \(steps)")
        let sorted = steps.sorted()
        if !sorted.isEmpty { #expect(abs(sorted[sorted.count / 2] - 33) <= 4, "median step \(sorted[sorted.count / 2]) ms; steps \(steps)") }
        if clocks.count > 1, let first = clocks.first, let last = clocks.last {
            let mean = Double(last - first) / Double(clocks.count - 1)
            #expect(abs(mean - 1000.0 / 30) <= 5, "mean step \(mean) ms")
        }
    }
}
