import Foundation
import HLSPlaylist
import Logging
import MediaPipeline
import OriginPolicy
import OriginRegistry
import OriginState
import SegmentStore
import SidelineConfig
import SidelineCore
import StreamPublishing
import Synchronization

/// One stream of the configuration turned into what each module needs: pipeline settings,
/// the target duration, the recorder, and its entry in the shared registry.
public struct ServePlan: Sendable {
    public let configuration: SidelineConfiguration
    public let stream: StreamSettings
    public let realtime: Bool
    /// Where each rung's encoder effort starts and how it moves (`EncodingCapacity.effort`).
    public var effort: EffortSettings
    /// Rungs served without encoding, as the calibration says, so the rest fit
    /// (`CapacityPlan.shedRungs`): out of the master, their slots a sibling's segments.
    public var shed: [String]
    /// The rungs shed now, at start or later (`LoadShedding`): every run of the stream's
    /// pipeline feeds them nothing, so a run the watchdog starts keeps them shed.
    public let shedding: ShedControl

    public init(configuration: SidelineConfiguration, stream: StreamSettings, realtime: Bool, effort: EffortSettings = EffortSettings(), shed: [String] = []) {
        self.shed = shed
        self.shedding = ShedControl(shed: Set(shed))
        self.configuration = configuration
        // A pushed stream with no configured ladder serves the one it took before a restart.
        self.stream = PushedLadder.restoring(stream, dataDirectory: configuration.dataDirectory)
        self.realtime = realtime
        self.effort = effort
    }

    public var pipelineConfiguration: PipelineConfiguration {
        var configuration = PipelineConfiguration(
            input: stream.input,
            loop: stream.loop,
            realtime: realtime,
            inputTimeout: stream.inputTimeout,
            frameRate: FrameRate(stream.video.frameRate),
            segmentDuration: configuration.segmentDuration,
            variants: stream.video.ladder,
            audio: AudioSpec(bitrate: configuration.audio.bitrate.bitsPerSecond, sampleRate: configuration.audio.sampleRate, channels: configuration.audio.channels),
            inputOptions: stream.inputOptions,
            audioInput: stream.audioInput.isEmpty ? nil : stream.audioInput,
            audioInputOptions: stream.audioInputOptions
        )
        configuration.lossTimeout = stream.lossTimeout
        configuration.effort = effort
        configuration.shedding = shedding
        configuration.partDuration = self.configuration.partDuration > 0 ? self.configuration.partDuration : nil
        configuration.keyframeEveryPart = self.configuration.redundancy?.keyframeEveryPart ?? false
        return configuration
    }

    /// What parts the stream's playlists list (Low-Latency HLS), from the pipeline's own part
    /// clock; nil without parts, and for a pushed stream, whose encoder sends whole segments.
    var parts: PartLedger.Settings? {
        guard !stream.isPushed, let clock = pipelineConfiguration.partClock else { return nil }
        return PartLedger.Settings(partTarget: clock.partTarget, partsPerSegment: clock.partsPerSegment)
    }

    public var targetDuration: Int {
        TargetDuration.forSegments(ofDuration: configuration.segmentDuration, frameRate: FrameRate(stream.video.frameRate).value)
    }

    /// Opens the input and sets up the encoders, so that a bad input fails before anything is
    /// written to the data directory.
    public func openPipeline(logger: Logger) throws -> OpenedPipeline {
        if configuration.partDuration > 0 && pipelineConfiguration.partClock == nil {
            throw SidelineStartupError(message: streamLabel + "part_duration \(configuration.partDuration) s cannot cut \(configuration.segmentDuration) s segments at "
                                       + "\(stream.video.frameRate) fps into parts of whole frames (at most \(PartClock.mostPartsPerSegment) per segment): "
                                       + "set part_duration to at least one frame's time, or 0 for no parts")
        }
        let events = EventForwarder()
        let pipeline: LivePipeline
        do {
            pipeline = try LivePipeline(configuration: pipelineConfiguration, logger: logger) { event in events.forward(event) }
        } catch {
            throw SidelineStartupError(message: streamLabel + error.description)
        }
        return OpenedPipeline(pipeline: pipeline, events: events)
    }

    /// Connects an opened pipeline to the recorder and the registry. Separate from `openPipeline`
    /// so a server with several streams opens every input before it writes anything. Returns
    /// the publisher and the timeline slot to start the pipeline at.
    public func makePublisher(for opened: OpenedPipeline, registry: StreamRegistry, withStandIns: Bool = true, logger: Logger) throws -> (StreamPublisher, firstSlot: Int) {
        let publisher = try makePublisher(registry: registry, hasAudio: opened.pipeline.hasAudio, withStandIns: withStandIns, logger: logger)
        let first = publisher.beginRun(of: opened.pipeline)
        opened.events.connect(publisher)
        return (publisher, first)
    }

    /// Whether the data directory holds a recording of this stream (a media playlist of any
    /// variant). Such a stream is served before its input is opened: a restart answers at
    /// once, even when the camera is down.
    public var hasRecording: Bool {
        stream.video.ladder.contains { FileManager.default.fileExists(atPath: layout.mediaPlaylistPath($0.name)) }
    }

    /// Whether the operator (or retention) removed this stream: its tombstone is on disk. It
    /// answers 410 and is not encoded, even if the config still names it.
    public var isRemoved: Bool { StreamTombstone.read(layout) != nil }

    /// A removed stream in the registry: known, with no variant, answering 410 (`.removed`).
    public func registerRemoved(in registry: StreamRegistry) {
        registry.apply(.register(stream: stream.name, title: stream.title, variants: [], targetDuration: targetDuration))
        registry.apply(.phase(stream: stream.name, .removed))
    }

    /// A stream's name before its errors when the server has several, so the message says which camera.
    private var streamLabel: String { configuration.streams.count > 1 ? "stream '\(stream.name)': " : "" }

    public var layout: StreamLayout { StreamLayout(dataDirectory: configuration.dataDirectory, stream: stream.name) }

    /// The recorder (continuing any recording on disk) and its publisher, registered in the
    /// registry; the pipeline comes later (`StreamPublisher.beginRun`). `hasAudio`: whether
    /// the input has sound (nil before it is opened: as the recording's master says). The
    /// stand-ins are encoded (or read back) here, before anything is served.
    public func makePublisher(registry: StreamRegistry, hasAudio: Bool? = nil, withStandIns: Bool = true, logger: Logger) throws -> StreamPublisher {
        let layout = self.layout
        let recorder: StreamRecorder
        // A box of a redundant pair or of a venue's several boxes numbers and dates by its
        // clock: it must be set, and a recording it continues must be on the universal grid
        // and not too far behind.
        let universal = withStandIns && configuration.usesUniversalTimeline ? SetTimeline.universal(segmentDuration: configuration.segmentDuration) : nil
        let now = Date()
        if universal != nil, !SetTimeline.isPlausibleClock(now) {
            throw SidelineStartupError(message: streamLabel + "this box's clock reads \(ProgramDateTime.format(now)); a box with `redundancy` or `boxes` numbers and dates its segments by the clock, so set it (NTP: `chronyc tracking` shows the offset) and start again")
        }
        do {
            recorder = try StreamRecorder(layout: layout, variantNames: stream.video.ladder.map(\.name), targetDuration: targetDuration,
                                          continuing: { playlist in universal?.reasonNotToContinue(playlist.segments, mediaSequence: playlist.mediaSequence, now: now) },
                                          logger: logger)
        } catch {
            throw SidelineStartupError(message: streamLabel + error.description)
        }
        registry.apply(.register(stream: layout.stream, title: stream.title, variants: stream.video.ladder.map(\.name), targetDuration: targetDuration))
        registry.apply(.metadata(stream: layout.stream, title: stream.title, description: stream.description, keywords: stream.keywords))
        // The analysts' markers, before any playlist is served, so none is ever served without them.
        switch MarkerFile.load(layout) {
        case let .success(markers): registry.apply(.markers(stream: layout.stream, markers))
        case let .failure(error): logger.error("markers of stream '\(layout.stream)': \(error)")
        }
        for (name, variant) in recorder.variants {
            // One snapshot of what the variant recorded serves for the files, gaps and playlists.
            let recorded = variant.livePlaylists
            let entries = recorded.playlist.playlist.segments
            guard !entries.isEmpty else { continue }
            // The entries' files, and the late segments that replace some of them in the recording.
            let late = recorded.playlist.playlist.replacements.values.map { MediaSegment(uri: $0.uri, duration: $0.duration) }
            let segments = Dictionary(uniqueKeysWithValues: (entries + late).compactMap { segment -> (String, StreamRegistry.SegmentFile)? in
                guard !segment.gap else { return nil }
                let path = layout.segmentPath(name, segment.uri)
                guard let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) else { return nil }
                return (segment.uri, StreamRegistry.SegmentFile(path: path, size: size, duration: segment.duration))
            })
            registry.apply(.publish(.init(.restored(segments: segments, gaps: Set(entries.filter(\.gap).map(\.uri))),
                                   stream: layout.stream, variant: name, playlist: recorded.playlist, iFrames: recorded.iFrames)))
        }
        let recordedMaster = recorder.archivedPreviousRecording == nil ? try? String(contentsOfFile: layout.masterPlaylistPath, encoding: .utf8) : nil
        if recordedMaster != nil { registry.apply(.phase(stream: layout.stream, .live)) }
        let audio = hasAudio ?? recordedMaster.flatMap { try? MultivariantPlaylist.parse($0).carriesAudio } ?? true
        var standIns: [String: StandIn] = [:]
        if withStandIns {
            do {
                standIns = try StandIns.load(pipelineConfiguration, layout: layout, withAudio: audio, logger: logger)
            } catch {
                throw SidelineStartupError(message: streamLabel + "\(error)")
            }
        }
        return StreamPublisher(configuration: configuration, stream: stream, recorder: recorder, registry: registry, standIns: standIns, hasAudio: audio,
                               setTimeline: withStandIns ? setTimeline(logger: logger) : nil, parts: parts, targetDuration: targetDuration, shed: shed, logger: logger)
    }

    /// The timeline this stream runs on: on a box with `redundancy` or `boxes`, the universal
    /// grid, for every stream (issue 35: every other box derives the same one); else the timeline of the
    /// set this stream is an angle of (nil in no set). Only a live server runs a timeline
    /// (`withStandIns`): `sideline encode` numbers from zero as ever.
    public func setTimeline(logger: Logger) -> SetTimeline? {
        if configuration.usesUniversalTimeline { return .universal(segmentDuration: configuration.segmentDuration) }
        return configuration.angleSet(containing: stream.name).map { SetTimelineStore.timeline(of: $0, configuration: configuration, logger: logger) }
    }
}

/// A stream's pipeline, open and ready to start, not yet connected to a recorder.
public struct OpenedPipeline {
    public let pipeline: LivePipeline
    public let events: EventForwarder
}

/// Lets the pipeline be built before whoever takes its events (they only flow after
/// `LivePipeline.start()`, which comes after `connect`): a stream's publisher in `serve`, the
/// push session in `sideline push`. Cuts off a pipeline the watchdog abandoned, and notes
/// whether the pipeline has finished (the watchdog leaves it alone then).
public final class EventForwarder: Sendable {
    private let target = Mutex<(@Sendable (PipelineEvent) -> Void)?>(nil)
    private let finished = Atomic<Bool>(false)

    func connect(_ publisher: StreamPublisher) { connect(publisher.handle) }
    public func connect(_ handle: @escaping @Sendable (PipelineEvent) -> Void) { target.withLock { $0 = handle } }
    func disconnect() { target.withLock { $0 = nil } }

    func forward(_ event: PipelineEvent) {
        if case .finished = event { finished.store(true, ordering: .relaxed) }
        target.withLock { $0 }?(event)
    }

    /// Whether the pipeline has reported `.finished` (it has nothing more to do).
    var hasFinished: Bool { finished.load(ordering: .relaxed) }
}
