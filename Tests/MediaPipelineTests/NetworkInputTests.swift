import Foundation
import HLSPlaylist
@testable import MediaPipeline
import SidelineCore
import Testing
import TestSupport

/// `--input testpattern`: no camera or file needed.
@Suite struct TestPatternTests {
    @Test func theTestPatternIsAStreamWithVideoAndAudio() async throws {
        let outcome = try await PipelineRun.run(PipelineRun.configuration(input: "testpattern"), stopAfterSegments: 3)
        #expect(outcome.failures.isEmpty)
        let segments = try #require(outcome.segments["720p"])
        #expect(segments.count >= 3)
        #expect(outcome.formats["720p"]?.codecs.count == 2, "video and the tone")
        let directory = try makeTemporaryDirectory("testpattern")
        for file in try PipelineRun.write(Array(segments.prefix(3)), to: directory) {
            #expect(try await FFprobe.packets(file, stream: "v").first?.isKeyframe == true)
            #expect(!(try await FFprobe.packets(file, stream: "a")).isEmpty)
        }
    }
}

/// A live MPEG-TS feed over UDP, sent by the ffmpeg CLI on loopback, as an IP camera or an
/// encoder in the venue would send it.
@Suite struct NetworkInputTests {
    @Test func aUDPFeedIsSegmentedAndItsEndIsInputLossNotEndOfStream() async throws {
        let port = Int.random(in: 20000...40000)
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: try Command.which("ffmpeg"))
        sender.arguments = ["-v", "error", "-re", "-i", Repository.sample, "-t", "9", "-c", "copy", "-f", "mpegts", "udp://127.0.0.1:\(port)?pkt_size=1316"]
        sender.standardInput = FileHandle.nullDevice
        // Not the test runner\'s stdout: a sender left running would hold the runner\'s pipe open.
        sender.standardOutput = FileHandle.nullDevice
        try sender.run()
        defer { if sender.isRunning { kill(sender.processIdentifier, SIGKILL) } }

        var configuration = PipelineRun.configuration(input: "udp://127.0.0.1:\(port)")
        // Generous: the suite runs other encodes at the same time, and the receiver must wait
        // for PAT/PMT and a keyframe (every 2.5 s in the sample) before it can open.
        configuration.inputTimeout = 6
        configuration.lossTimeout = 4
        let outcome = try await PipelineRun.run(configuration, stopOnInputLoss: true)
        let segments = try #require(outcome.segments["720p"])
        // About 9 s were sent; the receiver joins a moment late and needs a keyframe to start.
        #expect(segments.count >= 2)
        for segment in segments.dropLast() { #expect(abs(segment.duration - 2) < 1e-6) }
        // The feed stopping is an input loss (ridden out while reconnecting), not the end.
        #expect(outcome.outages.first.map { $0.hasPrefix("lost ") && $0.contains("udp://127.0.0.1:\(port)") && $0.contains("no data for the read timeout") } == true,
                "\(outcome.outages)")
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        let directory = try makeTemporaryDirectory("udp")
        for file in try PipelineRun.write(segments, to: directory) {
            #expect(try await FFprobe.packets(file, stream: "v").first?.isKeyframe == true)
        }
    }
}

/// RTSP pushed by the ffmpeg CLI (as an encoder in the venue would push it), received by
/// Sideline in listen mode through `input_options`, interleaved over TCP.
@Suite struct RTSPInputTests {
    @Test func anRTSPFeedIsSegmented() async throws {
        // A port the kernel says is free now, not a random one in its ephemeral range, where a
        // connection of a test beside this one could hold it (seen 2026-11-29: "Address already
        // in use").
        let port = try freePort()
        var configuration = PipelineRun.configuration(input: "rtsp://127.0.0.1:\(port)/live")
        configuration.inputOptions = ["rtsp_flags": "listen"]
        configuration.inputTimeout = 8
        // These test the transport: only the sender's end counts as the loss that stops them.
        configuration.lossTimeout = 4

        // Opening blocks until the sender connects, so open on a thread of its own.
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: try Command.which("ffmpeg"))
        sender.arguments = ["-v", "error", "-re", "-i", Repository.sample, "-t", "7", "-c", "copy", "-f", "rtsp", "-rtsp_transport", "tcp", "rtsp://127.0.0.1:\(port)/live"]
        sender.standardInput = FileHandle.nullDevice
        // Not the test runner\'s stdout: a sender left running would hold the runner\'s pipe open.
        sender.standardOutput = FileHandle.nullDevice
        sender.standardError = FileHandle.nullDevice
        Thread {
            Thread.sleep(forTimeInterval: 1)
            try? sender.run()
        }.start()
        defer { if sender.isRunning { kill(sender.processIdentifier, SIGKILL) } }

        let outcome = try await PipelineRun.run(configuration, stopOnInputLoss: true)
        let segments = try #require(outcome.segments["720p"])
        #expect(segments.count >= 2, "\(outcome.failures)")
        for segment in segments.dropLast() { #expect(abs(segment.duration - 2) < 1e-6) }
        #expect(outcome.formats["720p"]?.codecs.count == 2, "video and audio came through RTSP")
        #expect(outcome.outages.first?.hasPrefix("lost ") == true, "a feed that stops is input loss, not the end of the event: \(outcome.outages)")
    }
}

/// The other feeds a venue has, each sent by the ffmpeg CLI on loopback the way an encoder or
/// camera would: SRT and RTMP pushed to Sideline listening, MPEG-TS over HTTP pulled from a
/// server. One cheap rung each: these test the transport, not the picture.
@Suite struct PushedAndPulledFeedTests {
    struct Feed: Sendable, CustomTestStringConvertible {
        let name: String
        /// The input as Sideline opens it, and its options.
        let input: @Sendable (Int) -> String
        let options: [String: String]
        /// The sender's output arguments (after the input and `-c copy`).
        let output: @Sendable (Int) -> [String]
        /// Whether the sender must be running first (it is the server) or Sideline listens.
        let senderFirst: Bool
        var testDescription: String { name }
    }

    static let feeds: [Feed] = [
        Feed(name: "SRT, Sideline as listener", input: { "srt://127.0.0.1:\($0)?mode=listener" }, options: [:],
             output: { ["-f", "mpegts", "srt://127.0.0.1:\($0)?mode=caller"] }, senderFirst: false),
        Feed(name: "RTMP, pushed to Sideline", input: { "rtmp://127.0.0.1:\($0)/live/cam" }, options: ["listen": "1"],
             output: { ["-f", "flv", "rtmp://127.0.0.1:\($0)/live/cam"] }, senderFirst: false),
        Feed(name: "MPEG-TS over HTTP, pulled", input: { "http://127.0.0.1:\($0)/cam.ts" }, options: [:],
             output: { ["-f", "mpegts", "-listen", "1", "http://127.0.0.1:\($0)/cam.ts"] }, senderFirst: true),
    ]

    @Test(arguments: feeds)
    func aFeedIsSegmented(feed: Feed) async throws {
        // A port the kernel says is free now: a random one in the ephemeral range can be held by
        // a connection of a test beside this one, and a sender that cannot listen exits at once
        // (seen in CI 2026-11-29: every pull refused for the whole retry window).
        let port = try freePort()
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: try Command.which("ffmpeg"))
        // 12 s: opening waits for stream information (PAT/PMT and a keyframe, every 2.5 s in the
        // sample), which on a loaded machine takes a good part of the feed.
        sender.arguments = ["-v", "error", "-re", "-i", Repository.sample, "-t", "12", "-c", "copy"] + feed.output(port)
        sender.standardInput = FileHandle.nullDevice
        // Not the test runner\'s stdout: a sender left running would hold the runner\'s pipe open.
        sender.standardOutput = FileHandle.nullDevice
        sender.standardError = FileHandle.nullDevice
        defer { if sender.isRunning { kill(sender.processIdentifier, SIGKILL) } }
        if feed.senderFirst {
            try sender.run()
        } else {
            // Sideline's open blocks until the sender connects; start the sender a moment later.
            Thread {
                Thread.sleep(forTimeInterval: 1)
                try? sender.run()
            }.start()
        }
        let cheap = Rung(name: "180p", width: 320, height: 180, bitrate: 300_000, maxrate: 330_000, bufsize: 600_000, preset: "ultrafast", profile: "main")
        var configuration = PipelineRun.configuration(input: feed.input(port), variants: [cheap])
        configuration.inputOptions = feed.options
        configuration.inputTimeout = 8
        // These test the transport: only the sender's end counts as the loss that stops them.
        configuration.lossTimeout = 4
        // A sender that is the server may take a moment to listen on a loaded machine: retry a
        // refused pull for up to 10 s while the sender still runs.
        var finished: PipelineRun.Outcome?
        let deadline = ContinuousClock.now + .seconds(10)
        while finished == nil {
            do {
                finished = try await PipelineRun.run(configuration, stopOnInputLoss: true)
            } catch let error as PipelineError where feed.senderFirst && sender.isRunning && ContinuousClock.now < deadline && "\(error)".contains("Connection refused") {
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        let outcome = try #require(finished)
        let segments = try #require(outcome.segments["180p"], "\(outcome.failures)")
        #expect(segments.count >= 2, "\(outcome.failures)")
        for segment in segments.dropLast() { #expect(abs(segment.duration - 2) < 1e-6) }
        #expect(outcome.formats["180p"]?.codecs.count == 2, "video and audio came through")
        #expect(outcome.outages.first?.hasPrefix("lost ") == true, "a feed that stops is input loss, not the end of the event: \(outcome.outages)")
        let directory = try makeTemporaryDirectory("feed")
        for file in try PipelineRun.write(segments, to: directory) {
            #expect(try await FFprobe.packets(file, stream: "v").first?.isKeyframe == true)
        }
    }
}
