import Foundation
import HLSOrigin
import HLSPlaylist
import Logging
import MediaPipeline
import SegmentStore
import SidelineConfig
import Synchronization

/// The configuration turned into what each module needs: pipeline settings, the target
/// duration, the recorder and the registry.
struct ServePlan {
    let configuration: SidelineConfiguration
    let realtime: Bool

    var pipelineConfiguration: PipelineConfiguration {
        PipelineConfiguration(
            input: configuration.stream.input,
            loop: configuration.stream.loop,
            realtime: realtime,
            inputTimeout: configuration.stream.inputTimeout,
            frameRate: FrameRate(configuration.video.frameRate),
            segmentDuration: configuration.segmentDuration,
            variants: configuration.video.ladder.map {
                VariantSpec(name: $0.name, width: $0.width, height: $0.height, bitrate: $0.bitrate.bitsPerSecond,
                            maxrate: $0.maxrate.bitsPerSecond, bufsize: $0.bufsize.bitsPerSecond, preset: $0.preset, profile: $0.profile)
            },
            audio: AudioSpec(bitrate: configuration.audio.bitrate.bitsPerSecond, sampleRate: configuration.audio.sampleRate, channels: configuration.audio.channels),
            inputOptions: configuration.stream.inputOptions
        )
    }

    var targetDuration: Int {
        TargetDuration.forSegments(ofDuration: configuration.segmentDuration, frameRate: FrameRate(configuration.video.frameRate).value)
    }

    /// Opens the input and sets up the encoders first, so that a bad input fails before
    /// anything is written to the data directory; then the recorder and the registry.
    func makePipeline(logger: Logger) throws -> (LivePipeline, StreamPublisher) {
        let events = EventForwarder()
        let pipeline: LivePipeline
        do {
            pipeline = try LivePipeline(configuration: pipelineConfiguration, logger: logger) { event in events.forward(event) }
        } catch {
            throw SidelineStartupError(message: error.description)
        }
        let publisher = try makePublisher(logger: logger)
        publisher.hasAudio = pipeline.hasAudio
        publisher.measureLatency(from: pipeline.timings)
        events.connect(publisher)
        return (pipeline, publisher)
    }

    private func makePublisher(logger: Logger) throws -> StreamPublisher {
        let layout = StreamLayout(dataDirectory: configuration.dataDirectory, stream: configuration.stream.name)
        let recorder: StreamRecorder
        do {
            recorder = try StreamRecorder(layout: layout, variantNames: configuration.video.ladder.map(\.name), targetDuration: targetDuration, logger: logger)
        } catch {
            throw SidelineStartupError(message: error.description)
        }
        let registry = StreamRegistry()
        registry.register(stream: layout.stream, title: configuration.stream.title, variants: configuration.video.ladder.map(\.name), targetDuration: targetDuration)
        for (name, variant) in recorder.variants where !variant.playlist.segments.isEmpty {
            let segments = Dictionary(uniqueKeysWithValues: variant.playlist.segments.compactMap { segment -> (String, StreamRegistry.SegmentFile)? in
                let path = layout.segmentPath(name, segment.uri)
                guard let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) else { return nil }
                return (segment.uri, StreamRegistry.SegmentFile(path: path, size: size, duration: segment.duration))
            })
            registry.restore(stream: layout.stream, variant: name, playlistText: variant.playlistText,
                             iFramePlaylistText: variant.iFramePlaylistText, segments: segments)
        }
        if let master = try? String(contentsOfFile: layout.masterPlaylistPath, encoding: .utf8), recorder.archivedPreviousRecording == nil {
            registry.setMaster(stream: layout.stream, text: master)
            registry.setPhase(stream: layout.stream, .live)
        }
        return StreamPublisher(configuration: configuration, recorder: recorder, registry: registry, logger: logger)
    }
}

/// Lets the pipeline be built before the publisher it reports to. Events only flow after
/// `LivePipeline.start()`, which comes after `connect`.
final class EventForwarder: Sendable {
    private let target = Mutex<StreamPublisher?>(nil)
    func connect(_ publisher: StreamPublisher) { target.withLock { $0 = publisher } }
    func forward(_ event: PipelineEvent) { target.withLock { $0 }?.handle(event) }
}
