import EncoderEffort
import Foundation
import HLSPlaylist
@testable import MediaPipeline
import SidelineCore
import Testing
import TestSupport

/// A live input with one rung too slow for it at its configured effort: the rung steps down at
/// a segment boundary instead of dropping frames, and the stream stays one clean stream across
/// the change of encoder (IDR first, DTS rising, every frame there).
@Suite struct EffortStepPipelineTests {
    @Test func aRungTooSlowForItsPresetStepsDownAndKeepsEveryFrame() async throws {
        let fast = Rung(name: "fast", width: 320, height: 180, bitrate: 300_000, maxrate: 330_000, bufsize: 600_000, preset: "veryfast", profile: "main",
                        lookahead: 5)
        var slow = fast
        slow.name = "slow"
        var configuration = PipelineRun.configuration(input: Repository.sample, variants: [fast, slow])
        configuration.realtime = true
        // 40 ms a frame at veryfast is 1.2x the 33 ms a 30 fps input allows; superfast (0.6x) and
        // ultrafast-b (0.45x) keep up.
        configuration.simulatedEncodeDelay = ["slow": 0.04]
        let outcome = try await PipelineRun.run(configuration, stopAfterSegments: 5)

        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        #expect(outcome.statistics.framesDroppedBySlowVariants == 0, "the rung stepped down before its queue filled")
        let reports = try #require(outcome.efforts["slow"])
        #expect(reports.first == EffortReport(step: 0, name: "veryfast", change: nil, load: nil))
        // Busier than the segment was long: two steps at once, to ultrafast-b, and it stays there.
        #expect(reports.dropFirst().map(\.change) == [.down(to: 2)], "\(reports)")
        #expect(reports.last?.name == "ultrafast-b")
        let load = try #require(reports.last?.load)
        #expect(load.busyShare > 1, "\(load)")
        #expect(outcome.efforts["fast"]?.map(\.step) == [0], "the fast rung keeps its preset")

        let slowSegments = try #require(outcome.segments["slow"])
        let files = try PipelineRun.write(slowSegments, to: try makeTemporaryDirectory("effort-steps"))
        #expect(files.count >= 5)
        var previousDTS = -Double.infinity
        for (k, file) in files.enumerated() {
            let video = try await FFprobe.packets(file, stream: "v")
            // The last segment is the one cut short by the stop.
            if k < 5 { #expect(video.count == 60, "segment \(k) has every frame: \(video.count)") }
            #expect(video.first?.isKeyframe == true, "segment \(k) starts with an IDR")
            for packet in video {
                let dts = try #require(packet.dts)
                #expect(dts > previousDTS, "DTS rises across segment \(k), where the encoder changed")
                previousDTS = dts
            }
        }
    }

    @Test func aFileEncodedAsFastAsPossibleKeepsItsPreset() async throws {
        let rung = Rung(name: "only", width: 320, height: 180, bitrate: 300_000, maxrate: 330_000, bufsize: 600_000, preset: "veryfast", profile: "main")
        var configuration = PipelineRun.configuration(input: Repository.sample, variants: [rung])
        configuration.effort.startingStep = 2
        let outcome = try await PipelineRun.run(configuration, stopAfterSegments: 2)
        #expect(outcome.efforts.isEmpty, "busy all the time is the point of a file run: no effort steps")
    }
}
