import Foundation
@testable import MediaPipeline
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
        try sender.run()
        defer { if sender.isRunning { sender.terminate() } }

        var configuration = PipelineRun.configuration(input: "udp://127.0.0.1:\(port)")
        // Generous: the suite runs other encodes at the same time, and the receiver must wait
        // for PAT/PMT and a keyframe (every 2.5 s in the sample) before it can open.
        configuration.inputTimeout = 6
        let outcome = try await PipelineRun.run(configuration)
        let segments = try #require(outcome.segments["720p"])
        // About 9 s were sent; the receiver joins a moment late and needs a keyframe to start.
        #expect(segments.count >= 2)
        for segment in segments.dropLast() { #expect(abs(segment.duration - 2) < 1e-6) }
        // The feed stopping is reported as a lost input, and the stream is not ended.
        #expect(outcome.failures.contains { $0.contains("udp://127.0.0.1:\(port)") && $0.contains("no data for the read timeout") }, "\(outcome.failures)")
        #expect(outcome.endOfStream == false)
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
        let port = Int.random(in: 40001...50000)
        var configuration = PipelineRun.configuration(input: "rtsp://127.0.0.1:\(port)/live")
        configuration.inputOptions = ["rtsp_flags": "listen"]
        configuration.inputTimeout = 8

        // Opening blocks until the sender connects, so open on a thread of its own.
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: try Command.which("ffmpeg"))
        sender.arguments = ["-v", "error", "-re", "-i", Repository.sample, "-t", "7", "-c", "copy", "-f", "rtsp", "-rtsp_transport", "tcp", "rtsp://127.0.0.1:\(port)/live"]
        sender.standardInput = FileHandle.nullDevice
        sender.standardError = FileHandle.nullDevice
        Thread {
            Thread.sleep(forTimeInterval: 1)
            try? sender.run()
        }.start()
        defer { if sender.isRunning { sender.terminate() } }

        let outcome = try await PipelineRun.run(configuration)
        let segments = try #require(outcome.segments["720p"])
        #expect(segments.count >= 2, "\(outcome.failures)")
        for segment in segments.dropLast() { #expect(abs(segment.duration - 2) < 1e-6) }
        #expect(outcome.formats["720p"]?.codecs.count == 2, "video and audio came through RTSP")
        #expect(outcome.endOfStream == false, "a feed that stops is input loss, not the end of the event")
    }
}
