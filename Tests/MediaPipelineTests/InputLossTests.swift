import Foundation
import HLSPlaylist
@testable import MediaPipeline
import SidelineCore
import Testing
import TestSupport

/// A live UDP feed (the ffmpeg CLI on loopback) cut for several seconds and restored: the
/// pipeline notices within the loss timeout, keeps every segment coming with the slate,
/// reconnects by itself, and goes back to the camera at a segment boundary, with one
/// continuous timeline.
@Suite struct InputLossTests {
    static func sender(port: Int, seconds: Int) throws -> Process {
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: try Command.which("ffmpeg"))
        sender.arguments = ["-v", "error", "-re", "-i", Repository.sample, "-t", String(seconds), "-c", "copy", "-f", "mpegts", "udp://127.0.0.1:\(port)?pkt_size=1316"]
        sender.standardInput = FileHandle.nullDevice
        sender.standardOutput = FileHandle.nullDevice
        sender.standardError = FileHandle.nullDevice
        return sender
    }

    @Test func aCutFeedIsBridgedWithTheSlateAndComesBack() async throws {
        let port = Int.random(in: 20000...40000)
        let first = try Self.sender(port: port, seconds: 7)
        try first.run()
        let second = try Self.sender(port: port, seconds: 12)
        defer {
            if first.isRunning { kill(first.processIdentifier, SIGKILL) }
            if second.isRunning { kill(second.processIdentifier, SIGKILL) }
        }

        let cheap = Rung(name: "180p", width: 320, height: 180, bitrate: 300_000, maxrate: 330_000, bufsize: 600_000, preset: "ultrafast", profile: "main")
        var configuration = PipelineRun.configuration(input: "udp://127.0.0.1:\(port)", variants: [cheap])
        configuration.realtime = true
        configuration.inputTimeout = 6
        configuration.lossTimeout = 1
        // The feed comes back 5 s after the pipeline noticed it was lost.
        let observe: @Sendable (PipelineEvent, PipelineDrills) -> Void = { event, _ in
            guard case .inputLost = event else { return }
            Thread {
                Thread.sleep(forTimeInterval: 5)
                try? second.run()
            }.start()
        }
        let outcome = try await PipelineRun.run(configuration, timeout: 120, observe: observe) { outcome in
            // Stop two segments after the camera is back.
            guard let restored = outcome.outages.first(where: { $0.hasPrefix("restored ") }),
                  let firstLive = Int(restored.dropFirst("restored ".count)) else { return false }
            return (outcome.segments["180p"]?.last?.index ?? 0) >= firstLive + 1
        }
        #expect(!outcome.timedOut, "the feed came back within 120 s: \(outcome.outages)")
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        #expect(outcome.outages.count == 2, "\(outcome.outages)")
        let firstSlate = try #require(outcome.outages.first.flatMap { Int($0.dropFirst("lost ".count).prefix { $0 != ":" }) })
        let firstLive = try #require(outcome.outages.last.flatMap { Int($0.dropFirst("restored ".count)) })
        #expect(firstLive > firstSlate, "\(outcome.outages)")

        let segments = try #require(outcome.segments["180p"])
        #expect(segments.map(\.index) == Array(0..<segments.count), "no segment is missing through the outage")
        for (previous, next) in zip(segments, segments.dropFirst()) {
            #expect(abs(previous.startTime + previous.duration - next.startTime) < 1e-6, "one continuous timeline at segment \(next.index)")
        }
        for segment in segments.dropLast() { #expect(abs(segment.duration - 2) < 1e-6, "segment \(segment.index) lasts \(segment.duration)") }
        let directory = try makeTemporaryDirectory("input-loss")
        let files = try PipelineRun.write(segments, to: directory)
        for (segment, file) in zip(segments, files) {
            #expect(try await FFprobe.packets(file, stream: "v").first?.isKeyframe == true, "segment \(segment.index) starts with a keyframe")
            #expect(!(try await FFprobe.packets(file, stream: "a")).isEmpty, "segment \(segment.index) has sound (silence on the slate)")
            #expect(try await FFprobe.decodeErrors(file).isEmpty, "segment \(segment.index) decodes")
        }
    }
}
