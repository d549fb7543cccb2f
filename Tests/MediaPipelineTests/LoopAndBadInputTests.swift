import Foundation
import HLSPlaylist
import Logging
@testable import MediaPipeline
import Testing
import TestSupport

@Suite struct LoopingTests {
    /// A looped file plays like a camera that never stops: past the end of the 24 s sample the
    /// timeline goes on without a gap, a jump or a short segment.
    @Test func aLoopedFileKeepsTheTimelineContinuous() async throws {
        let outcome = try await PipelineRun.run(PipelineRun.configuration(input: Repository.sample, loop: true), stopAfterSegments: 14)
        let segments = try #require(outcome.segments["720p"])
        #expect(outcome.failures.isEmpty)
        #expect(outcome.statistics.loops >= 1)
        #expect(segments.count >= 14)
        for segment in segments.dropLast() {
            #expect(abs(segment.duration - 2) < 1e-6, "segment \(segment.index) lasts \(segment.duration)")
        }
        let directory = try makeTemporaryDirectory("loop")
        let files = try PipelineRun.write(Array(segments[10...13]), to: directory) // spans the loop point at 24 s
        var starts: [Double] = []
        for file in files {
            let video = try await FFprobe.packets(file, stream: "v")
            #expect(video.first?.isKeyframe == true)
            starts.append(video.map(\.pts).min()!)
            #expect(!(try await FFprobe.packets(file, stream: "a")).isEmpty, "audio continues after the loop")
        }
        for k in 1..<starts.count { #expect(abs(starts[k] - starts[k - 1] - 2) < 0.001) }
    }
}

@Suite struct BadInputTests {
    func openError(_ input: String) -> String? {
        do {
            _ = try LivePipeline(configuration: PipelineRun.configuration(input: input), logger: .init(label: "test")) { _ in }
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aMissingFileIsNamed() throws {
        let message = try #require(openError("/nonexistent/match.mp4"))
        #expect(message.contains("'/nonexistent/match.mp4'") && message.contains("no such file"))
    }

    @Test func aFileWithoutVideoIsRefused() async throws {
        let directory = try makeTemporaryDirectory("novideo")
        let path = directory + "/tone.m4a"
        let made = try await Command.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", path])
        #expect(made.status == 0)
        let message = try #require(openError(path))
        #expect(message.contains("has no video stream") && message.contains("audio aac"))
    }

    @Test func aFileThatIsNotMediaIsRefused() throws {
        let path = try makeTemporaryDirectory("notmedia") + "/notes.mp4"
        try Data("these are not video frames\n".utf8).write(to: URL(fileURLWithPath: path))
        let message = try #require(openError(path))
        #expect(message.contains("cannot be opened") && message.contains("ffprobe"))
    }

    @Test func anUnreachableURLIsRefused() throws {
        // Nothing listens on port 9 (discard) here: the connection is refused at once.
        let message = try #require(openError("rtsp://127.0.0.1:9/stream"))
        #expect(message.contains("rtsp://127.0.0.1:9/stream") && message.contains("reachable"))
    }

    @Test func aMissingDeviceIsRefused() throws {
        let message = try #require(openError("/dev/video-sideline-test"))
        #expect(message.contains("/dev/video-sideline-test") && message.contains("no such device"))
    }
}

@Suite struct CorruptInputTests {
    /// Damage in the middle of a transport stream costs the damaged packets, not the stream.
    @Test func corruptPacketsAreSkippedAndCounted() async throws {
        let directory = try makeTemporaryDirectory("corrupt")
        let clean = directory + "/clean.ts"
        let made = try await Command.run("ffmpeg", ["-v", "error", "-i", Repository.sample, "-c", "copy", "-t", "10", "-f", "mpegts", clean])
        #expect(made.status == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: clean))
        // Drop 40 whole TS packets (7.5 KB) a third of the way in: continuity counters break.
        let start = (bytes.count / 3 / 188) * 188
        bytes.removeSubrange(start..<(start + 188 * 40))
        let damaged = directory + "/damaged.ts"
        try bytes.write(to: URL(fileURLWithPath: damaged))

        let outcome = try await PipelineRun.run(PipelineRun.configuration(input: damaged))
        #expect(outcome.failures.isEmpty)
        #expect(outcome.endOfStream == true)
        #expect(outcome.statistics.corruptPackets > 0)
        let segments = try #require(outcome.segments["720p"])
        // The stream goes on to the end: the output is as long as the damaged input's video.
        let video = try await FFprobe.packets(damaged, stream: "v")
        let inputDuration = video.map(\.pts).max()! - video.map(\.pts).min()! + 1.0 / 30
        let outputDuration = segments.reduce(0) { $0 + $1.duration }
        #expect(abs(outputDuration - inputDuration) < 0.1, "output \(outputDuration) s, input \(inputDuration) s")
        #expect(segments.dropLast().allSatisfy { abs($0.duration - 2) < 1e-6 })
    }
}
