import Foundation
import HLSPlaylist
@testable import MediaPipeline
import SidelineCore
import Testing
import TestSupport

/// Capture devices through libavdevice. A V4L2 camera needs hardware, so that test runs only
/// where a /dev/video* device exists; ALSA's `null` device exists wherever alsa-lib does, so
/// the separate-audio path always runs for real.
@Suite struct DeviceInputTests {
    static let videoDevice = (try? FileManager.default.contentsOfDirectory(atPath: "/dev"))?
        .filter { $0.hasPrefix("video") }.sorted().first.map { "/dev/" + $0 }

    static let cheap = Rung(name: "180p", width: 320, height: 180, bitrate: 300_000, maxrate: 330_000, bufsize: 600_000, preset: "ultrafast", profile: "main")

    @Test(.enabled(if: videoDevice != nil, "no /dev/video* device on this machine: plug in a UVC camera (or load v4l2loopback) to run it"))
    func aV4L2CameraIsSegmented() async throws {
        let device = try #require(Self.videoDevice)
        var configuration = PipelineRun.configuration(input: device, variants: [Self.cheap])
        configuration.inputTimeout = 10
        let outcome = try await PipelineRun.run(configuration, stopAfterSegments: 2)
        let segments = try #require(outcome.segments["180p"], "\(outcome.failures)")
        #expect(segments.count >= 2)
        for segment in segments.dropLast() { #expect(abs(segment.duration - 2) < 1e-6) }
        let directory = try makeTemporaryDirectory("v4l2")
        for file in try PipelineRun.write(segments, to: directory) {
            #expect(try await FFprobe.packets(file, stream: "v").first?.isKeyframe == true)
        }
    }

    /// Video from one input, sound from an ALSA device: the segments carry both, the audio on
    /// the video's timeline. (ALSA's null device hands over one sample per read, far more work
    /// than a real card's periods, so under the suite's load its thread lags behind.)
    @Test func soundFromASeparateALSADevice() async throws {
        var configuration = PipelineRun.configuration(input: "testpattern", variants: [Self.cheap])
        configuration.realtime = true
        configuration.audioInput = "alsa:null"
        // ALSA's null device delivers one sample per read; a low rate keeps that cheap.
        configuration.audioInputOptions = ["sample_rate": "8000", "channels": "1"]
        let outcome = try await PipelineRun.run(configuration, stopAfterSegments: 3)
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        #expect(outcome.formats["180p"]?.codecs == [outcome.formats["180p"]?.codecs.first ?? "", "mp4a.40.2"], "the variant carries AAC from the ALSA device")
        let segments = try #require(outcome.segments["180p"])
        #expect(segments.count >= 3)
        let directory = try makeTemporaryDirectory("alsa")
        let files = try PipelineRun.write(segments, to: directory)
        // Segments after the first: the ALSA device needs a moment to start delivering.
        for file in files.dropFirst().dropLast() {
            let video = try await FFprobe.packets(file, stream: "v")
            let audio = try await FFprobe.packets(file, stream: "a")
            let start = try #require(video.first?.pts)
            let end = try #require(video.last?.pts) + 1.0 / 30
            #expect(!audio.isEmpty, "\(file) has sound")
            // On the video's timeline (not the device's clock): within the segment's video span,
            // give or take. Audio from the separate thread that arrives after a segment was cut
            // goes into the next one, so on a loaded machine some of it lies a little before the
            // start; the timestamps themselves stay right. At the other end the muxer may take
            // audio a little ahead of the video it interleaves with: 0.38 s was seen at a load
            // average of 9 (2026-11-23), so half a second is allowed.
            let stray = audio.map(\.pts).filter { $0 < start - 1 || $0 > end + 0.5 }
            #expect(stray.isEmpty, "\(file): audio \(stray) far from video \(start)...\(end)")
            #expect(zip(audio, audio.dropFirst()).allSatisfy { $0.pts < $1.pts }, "\(file): audio in order")
            let streams = try await FFprobe.streams(file)
            #expect(streams.contains { $0.codecType == "audio" && $0.codecName == "aac" })
        }
    }

    @Test func aMissingSoundDeviceIsNamed() async throws {
        var configuration = PipelineRun.configuration(input: "testpattern", variants: [Self.cheap])
        configuration.audioInput = "alsa:hw:97,0"
        await #expect {
            _ = try await PipelineRun.run(configuration)
        } throws: { error in
            let text = "\(error)"
            return text.contains("alsa:hw:97,0") && text.contains("arecord -l")
        }
    }
}
