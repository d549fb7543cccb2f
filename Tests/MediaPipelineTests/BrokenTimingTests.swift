import Foundation
import HLSPlaylist
@testable import MediaPipeline
import Testing
import TestSupport

/// Inputs whose timing is broken the way real feeds break: the output timeline stays
/// continuous and every segment stays whole.
@Suite struct BrokenTimingTests {
    /// Two pieces spliced together, the second with timestamps 1000 s later (a camera clock
    /// reset or a splice), then a change of picture size mid-stream.
    @Test func timestampJumpsAndResolutionChangesKeepTheTimelineWhole() async throws {
        let directory = try makeTemporaryDirectory("broken-timing")
        let first = directory + "/first.ts", jumped = directory + "/jumped.ts", smaller = directory + "/smaller.ts"
        for (path, extra) in [(first, ["-t", "4"]), (jumped, ["-ss", "4", "-t", "4", "-output_ts_offset", "1000"]),
                              (smaller, ["-ss", "8", "-t", "4", "-vf", "scale=640:360", "-output_ts_offset", "1004"])] {
            let args = ["-v", "error", "-y", "-i", Repository.sample] + extra
                + ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-c:a", "aac", "-f", "mpegts", path]
            let made = try await Command.run("ffmpeg", args)
            #expect(made.status == 0, "\(made.stderr)")
        }
        var spliced = Data()
        for path in [first, jumped, smaller] { spliced.append(try Data(contentsOf: URL(fileURLWithPath: path))) }
        let input = directory + "/spliced.ts"
        try spliced.write(to: URL(fileURLWithPath: input))

        let outcome = try await PipelineRun.run(PipelineRun.configuration(input: input))
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        #expect(outcome.statistics.timestampJumps >= 1)
        let segments = try #require(outcome.segments["720p"])
        let total = segments.reduce(0) { $0 + $1.duration }
        #expect(abs(total - 12) < 0.2, "12 s in, \(total) s out: the jump costs no time and adds none")
        for segment in segments.dropLast() { #expect(abs(segment.duration - 2) < 1e-6, "segment \(segment.index): \(segment.duration)") }
        let files = try PipelineRun.write(segments, to: directory)
        var starts: [Double] = []
        for file in files {
            let video = try await FFprobe.packets(file, stream: "v")
            #expect(video.first?.isKeyframe == true)
            starts.append(video.map(\.pts).min()!)
            // After the size change the scaler adapts: every segment is still 1280x720.
            let stream = try await FFprobe.streams(file).first { $0.codecType == "video" }
            #expect(stream?.width == 1280 && stream?.height == 720)
        }
        for k in 1..<starts.count { #expect(abs(starts[k] - starts[k - 1] - 2) < 0.001) }
    }
}
