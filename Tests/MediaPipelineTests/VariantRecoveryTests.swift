import Foundation
import HLSPlaylist
@testable import MediaPipeline
import SidelineCore
import Synchronization
import Testing
import TestSupport

/// One variant's encoder fails mid-stream and is set up again: its siblings never miss a
/// segment, it misses only the segments of its outage, and its first segment afterwards starts
/// with an IDR at exactly the media time its sibling's segment of the same number starts.
@Suite struct VariantRecoveryTests {
    @Test func aFailedEncoderIsReplacedAtASegmentBoundary() async throws {
        let steady = Rung(name: "steady", width: 320, height: 180, bitrate: 300_000, maxrate: 330_000, bufsize: 600_000, preset: "ultrafast", profile: "main")
        var failing = steady
        failing.name = "failing"
        var configuration = PipelineRun.configuration(input: Repository.sample, loop: true, variants: [steady, failing])
        configuration.realtime = true
        let fired = Atomic<Bool>(false)
        let outcome = try await PipelineRun.run(configuration, stopAfterSegments: 8, timeout: 120, observe: { event, drills in
            // Fail 'failing' once 'steady' has two segments; its new encoder is refused for 1.5 s.
            if case .segment("steady", let segment) = event, segment.index == 1, !fired.exchange(true, ordering: .relaxed) {
                drills.failVariant("failing", seconds: 1.5)
            }
        })

        #expect(outcome.failures.count == 1 && outcome.failures[0].contains("encoder of variant 'failing' failed (drill"), "\(outcome.failures)")
        let steadySegments = try #require(outcome.segments["steady"])
        let failingSegments = try #require(outcome.segments["failing"])
        #expect(steadySegments.map(\.index) == Array(0..<steadySegments.count), "the sibling misses nothing")
        let indices = failingSegments.map(\.index)
        let resumed = try #require(zip(indices, indices.dropFirst()).first { $1 != $0 + 1 }, "a span is missing: \(indices)")
        // Refused until 1.5 s after the failure, tried at 1 s and 3 s: back within a few segments.
        #expect(resumed.1 - resumed.0 >= 2 && resumed.1 - resumed.0 <= 4, "missing from \(resumed.0 + 1) to \(resumed.1 - 1): \(indices)")
        #expect(indices.last! >= resumed.1 + 1, "it goes on after it is back: \(indices)")

        let first = try #require(failingSegments.first { $0.index == resumed.1 })
        let sibling = try #require(steadySegments.first { $0.index == resumed.1 })
        #expect(first.startTime == sibling.startTime, "the same media time as the sibling's segment \(resumed.1)")
        #expect(abs(first.duration - 2) < 0.034, "\(first.duration)")
        let directory = try makeTemporaryDirectory("recovery")
        let files = try PipelineRun.write([first], to: directory)
        let video = try await FFprobe.packets(files[0], stream: "v")
        #expect(video.first?.isKeyframe == true, "the new encoder starts with an IDR")
        let audio = try await FFprobe.packets(files[0], stream: "a")
        #expect(!audio.isEmpty, "with its audio")
    }
}
