import EncoderEffort
import Foundation
import HLSPlaylist
import Logging
import MediaPipeline
import Metrics
import OriginPolicy
import OriginRegistry
import OriginState
import SegmentStore
import SidelineConfig
import SidelineCore
import StreamPublishing
import Synchronization

/// Takes the pipeline's events, on the pipeline's threads, and hands them to the stream's
/// publishing core (`LiveStreamCore`), which decides what each variant's playlist lists; the
/// stream's serial runner (`StreamEffectRunner`) has the `PlaylistWriter` record and publish
/// it after the core's lock, in the core's order. This type adds what only the server knows: the
/// input-loss policy for slate segments, publish latency, bit-rate checks, logs and metrics,
/// and the clock that ticks the core so late slots are filled on time.
public final class StreamPublisher: Sendable {
    public let registry: StreamRegistry
    public let writer: PlaylistWriter
    private let stream: StreamSettings
    /// Whether the stand-ins carry audio: a run without (or with, against none here) is tagged
    /// around them (`SlotPublisher.beginRun(now:standInMatchesRun:)`).
    private let hasAudio: Bool
    private let logger: Logger
    private let core: Mutex<LiveStreamCore>
    /// Carries out what the core decides, after its lock, in its order.
    private let runner: StreamEffectRunner
    /// Set when the operator stops the server: whether that also ends the stream.
    private let stopEndsStream = Mutex<Bool?>(nil)
    /// Publish latency of every segment of every variant: from the input thread reading the
    /// segment's last frame to the registry serving it.
    public let publishLatency = LatencyRecorder()
    private let timings = Mutex<SegmentTimings?>(nil)
    let streamMetrics: SidelineMetrics.Stream
    private let variantMetrics: [String: SidelineMetrics.Variant]
    private let ticking = Atomic<Bool>(false)
    /// Where each segment's load goes (`LoadShedding`): variant, at its cheapest step, load.
    private let loadReports = Mutex<(@Sendable (String, Bool, SegmentLoad) -> Void)?>(nil)
    /// Each rung's BANDWIDTH as the master advertises it, to check segments against.
    private let advertisedPeak: [String: Int]
    /// The set's timeline this stream runs on as an angle of a set; nil for a stream in no set.
    public let setTimeline: SetTimeline?
    /// `standIns`: every variant's stand-in (empty for `sideline encode`, which never fills).
    /// `setTimeline`: the set's, for an angle of a set (`SetTimelineStore`).
    init(configuration: SidelineConfiguration, stream: StreamSettings, recorder: StreamRecorder, registry: StreamRegistry,
         standIns: [String: StandIn], hasAudio: Bool, setTimeline: SetTimeline? = nil, parts: PartLedger.Settings? = nil, targetDuration: Int,
         shed: [String] = [], logger: Logger) {
        // A pushed stream's backlog comes late by design: the recording takes it (SlotPublisher.takeLate).
        let lateSegmentsReplaceFills = stream.isPushed
        self.stream = stream
        self.hasAudio = hasAudio
        self.streamMetrics = SidelineMetrics.Stream(stream: stream.name)
        let variantMetrics = Dictionary(uniqueKeysWithValues: stream.video.ladder.map { ($0.name, SidelineMetrics.Variant(stream: stream.name, variant: $0.name)) })
        self.variantMetrics = variantMetrics
        self.registry = registry
        self.logger = logger
        let audio = hasAudio ? RungRates.AudioRate(bitrate: configuration.audio.bitrate.bitsPerSecond, sampleRate: configuration.audio.sampleRate) : nil
        let rates = stream.video.ladder.map { rung in (name: rung.name, rates: RungRates(rung: rung, audio: audio, frameRate: stream.video.frameRate)) }
        let sessionData = MasterAssembly.sessionData(title: stream.title, description: stream.description, keywords: stream.keywords)
        let master = MasterAssembly(segmentDuration: configuration.segmentDuration, sessionData: sessionData, startOffset: stream.startOffset,
                                    mediaPlaylistURI: { "\($0)/\(StreamLayout.mediaPlaylistName)" }, iFramePlaylistURI: { "\($0)/\(StreamLayout.iFramePlaylistName)" },
                                    backupURIs: { [backups = stream.backups, name = stream.name] rung in
                                        backups.map { base in "\(base.hasSuffix("/") ? String(base.dropLast()) : base)/live/\(name)/\(rung)/\(StreamLayout.mediaPlaylistName)" }
                                    },
                                    // The other box of a redundant pair: the same stream, on its pathway, steered.
                                    pair: configuration.redundancy.map { [name = stream.name] redundancy in
                                        MasterAssembly.Pair(own: SteeringPolicy.pathway(ofRole: redundancy.role.rawValue),
                                                            other: SteeringPolicy.pathway(ofRole: redundancy.otherRole.rawValue),
                                                            otherURI: { [peer = redundancy.peerBase] rung in "\(peer)/live/\(name)/\(rung)/\(StreamLayout.mediaPlaylistName)" },
                                                            steeringURI: OriginPath.steeringName)
                                    })
        let segmentClock = SegmentClock(frameRate: FrameRate(stream.video.frameRate), segmentDuration: configuration.segmentDuration)
        let writer = PlaylistWriter(recorder: recorder, registry: registry, streamName: stream.name, standIns: standIns, clock: segmentClock, master: master,
                                    rates: rates, variantMetrics: variantMetrics, logger: logger)
        self.writer = writer
        let restored = Self.restored(recorder)
        var grid = setTimeline
        if let set = setTimeline, let recorded = recorder.variants.values.max(by: { $0.count < $1.count })?.playlist.segments,
           !set.holds(recorded, timeline: restored?.timeline ?? StreamTimeline()) {
            // Recorded before the stream joined its set, on a grid of its own: moving it would
            // take its timeline back. It runs on its own until its recording is ended or removed.
            logger.warning("this angle's recording is not on its set's timeline; it runs on its own timeline until a new recording starts", metadata: ["stream": "\(stream.name)"])
            grid = nil
        }
        self.setTimeline = grid
        let settings = SlotPublisher.Settings(variants: stream.video.ladder.map(\.name), segmentDuration: configuration.segmentDuration, grace: stream.lateGrace,
                                              onVariantFailure: stream.onVariantFailure, onLateSegment: stream.onLateSegment,
                                              lateSegmentsReplaceFills: lateSegmentsReplaceFills, setTimeline: grid,
                                              pairStartsWithGaps: configuration.redundancy != nil,
                                              standInsMatchTheEncoding: SlotPublishingSettings.standInsJoinTheEncoding(isPushed: stream.isPushed, standInDurations: standIns.values.map(\.duration),
                                                                                                             segmentDuration: configuration.segmentDuration),
                                              shed: Set(shed), alignsDiscontinuities: true, parts: parts,
                                              partEntriesKept: PartLedger.kept(targetDuration: targetDuration, segmentDuration: configuration.segmentDuration))
        var slots = SlotPublisher(settings: settings, restored: restored, now: registry.clock(), wallNow: Date())
        // Nothing else reaches the writer yet: the start's effects (the timeline, the GAP
        // entries of a set's passed slots, the master) are carried out here.
        writer.carry(slots.takeEffects())
        core = Mutex(LiveStreamCore(slots: slots, onInputLoss: stream.onInputLoss))
        runner = StreamEffectRunner { [writer] job in
            switch job {
            case let .stage(segment, variant): writer.stage(segment, for: variant)
            case let .publishing(effect): writer.carry([effect])
            case let .part(part, variant, listing): writer.partArrived(part, of: variant, listing: listing)
            case .end: writer.closeEveryPlaylist()
            }
        }
        for variant in shed {
            // Said where an operator looks: /api/streams, the page, /metrics, the log.
            registry.apply(.failure(stream: stream.name, variant: variant, SlotPublisher.shedReason))
            variantMetrics[variant]?.shed.record(1)
            logger.warning("rung shed: not encoded, out of the master; its playlist carries a sibling's segments",
                           metadata: ["stream": "\(stream.name)", "variant": "\(variant)", "why": "the calibration says the ladder does not fit this machine"])
        }
        advertisedPeak = Dictionary(uniqueKeysWithValues: rates.map { ($0.name, Bandwidth.peak($0.rates)) })
    }

    /// What the recording on disk holds, for the core to continue its timeline.
    private static func restored(_ recorder: StreamRecorder) -> SlotPublisher.Restored? {
        guard let longest = recorder.variants.values.max(by: { $0.count < $1.count }) else { return nil }
        let timeline = RecordingReader(layout: recorder.layout).timeline().flatMap { try? JSONDecoder().decode(StreamTimeline.self, from: Data($0)) }
        var restored = SlotPublisher.Restored(recorded: longest.playlist.segments, timeline: timeline)
        restored?.replaceable = recorder.variants.mapValues(\.playlist.replaceableEntries)
        // The recorder's numbering: each variant's own (the recorder aligns their entries, not
        // their first numbers, which a recording normally has the same).
        restored?.firstSequence = longest.playlist.mediaSequence
        restored?.variantFirstSequences = recorder.variants.mapValues(\.playlist.mediaSequence)
        return restored
    }

    public var streamName: String { stream.name }

    /// Calls `body` on the core under its lock and queues what it decided: the jobs `body`
    /// adds, then the core's effects not yet taken. The queue runs after the lock, so when this
    /// returns the call's effects are carried out (written, then published).
    private func withCore<T: Sendable>(_ body: (inout LiveStreamCore, inout [StreamEffectRunner.Job]) -> T) -> T {
        let result = core.withLock { c in
            var jobs: [StreamEffectRunner.Job] = []
            let result = body(&c, &jobs)
            jobs += c.takeEffects().map(StreamEffectRunner.Job.publishing)
            runner.enqueue(jobs)
            return result
        }
        runner.run()
        return result
    }

    /// Call before a pipeline's events reach this publisher: the first one, or one that
    /// replaces a pipeline the watchdog abandoned. Returns the timeline slot its first segment
    /// takes (start it there: `LivePipeline.start(atSegment:)`).
    public func beginRun(of pipeline: LivePipeline) -> Int {
        timings.withLock { $0 = pipeline.timings }
        return withCore { c, _ in c.beginRun(now: registry.clock(), standInMatchesRun: pipeline.hasAudio == hasAudio) }
    }

    /// A remote encoder begins a session (`PushedStream`): like a pipeline run, it continues the
    /// stream's timeline after an EXT-X-DISCONTINUITY. Returns the slot its first segment takes.
    public func beginPushSession() -> Int {
        timings.withLock { $0 = nil }
        return withCore { c, _ in c.beginRun(now: registry.clock()) }
    }

    /// When the current run started and its last real segment was accepted (registry clock),
    /// for the watchdog.
    public var progress: (runStartedAt: Double?, lastAccepted: Double?) { core.withLock { $0.progress } }

    /// Fills late slots on time: the core is ticked every 100 ms on a thread of its own until
    /// `stopTicking()`. Only a live server ticks (`sideline encode` runs faster than real time).
    public func startTicking() {
        guard !ticking.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [self] in
            while ticking.load(ordering: .relaxed) {
                withCore { c, _ in c.tick(now: registry.clock()) }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        thread.name = "sideline.slots.\(stream.name)"
        thread.start()
    }

    public func stopTicking() { ticking.store(false, ordering: .relaxed) }

    /// The stream is being removed: nothing is listed from now on (its recording is about to
    /// be deleted), and no slot is filled.
    public func retire() {
        stopTicking()
        withCore { c, _ in _ = c.end() }
    }

    /// The pipeline could not be opened: shown as input-lost (`/api/streams`, console) until
    /// the camera's segments are published again.
    func noteInputUnavailable() {
        withCore { c, _ in c.inputCouldNotBeOpened() }
        let phase = registry.stream(named: streamName)?.phase
        if phase != .ended && phase != .removed { registry.apply(.phase(stream: streamName, .inputLost)) }
    }

    /// Call before stopping the pipeline.
    public func prepareStop(endStream: Bool) {
        stopEndsStream.withLock { $0 = endStream }
    }

    public func handle(_ event: PipelineEvent) {
        switch event {
        case let .variantFormat(variant, format):
            writer.noteFormat(format, of: variant)
        case let .segment(variant, segment):
            publish(segment, of: variant)
        case let .part(variant, part):
            // Listed only while its slot is the one the variant lists next and shows the camera:
            // decided by the core, and queued in its order, so no entry is listed between the
            // question and the part. The core fixes the slot's entry with its first part; the
            // part goes out under it, after what the core decided before it.
            let recovered = withCore { c, jobs in
                let failed = c.slots.isFailed(variant)
                let listed = PartLedger.Part(index: part.index, duration: part.duration, independent: part.independent)
                if let listing = c.partArrived(variant: variant, slot: part.segment, part: listed, programDateTime: part.segmentCaptured, now: registry.clock()),
                   listing.edge != nil {
                    jobs += c.takeEffects().map(StreamEffectRunner.Job.publishing)
                    jobs.append(.part(part, variant: variant, listing: listing))
                }
                return failed && !c.slots.isFailed(variant)
            }
            if recovered { noteRecovered(variant) }
        case let .segmentLoad(variant, atCheapestStep, load):
            loadReports.withLock { $0 }?(variant, atCheapestStep, load)
        case let .progress(variant):
            let recovered = withCore { c, _ in
                let failed = c.slots.isFailed(variant)
                c.encoderProgressed(variant: variant, now: registry.clock())
                return failed && !c.slots.isFailed(variant)
            }
            if recovered { noteRecovered(variant) }
        case let .variantFailed(variant, reason):
            let fill = stream.onVariantFailure
            logger.error("variant failed; its slots are filled until it recovers", metadata: [
                "variant": "\(variant)", "reason": "\(reason)", "on_variant_failure": "\(fill.rawValue)",
            ])
            registry.apply(.failure(stream: streamName, variant: variant, reason))
            variantMetrics[variant]?.failures.increment()
            withCore { c, _ in c.variantFailed(variant) }
        case let .effort(variant, report):
            registry.apply(.effort(stream: streamName, variant: variant, step: report.step, name: report.name))
            variantMetrics[variant]?.effort.record(report.step)
            switch report.change {
            case .down: variantMetrics[variant]?.effortStepsDown.increment()
            case .up: variantMetrics[variant]?.effortStepsUp.increment()
            case nil: break
            }
        case let .inputLost(reason, since, firstSlateSegment):
            withCore { c, _ in c.inputLost(since: since, firstSlateSegment: firstSlateSegment) }
            registry.apply(.phase(stream: streamName, .inputLost))
            streamMetrics.inputLosses.increment()
            logger.error("input lost; reconnecting", metadata: ["policy": "\(stream.onInputLoss.rawValue)", "reason": "\(reason)"])
        case let .inputRestored(at, firstLiveSegment):
            withCore { c, _ in c.inputRestored(at: at, firstLiveSegment: firstLiveSegment) }
            registry.apply(.phase(stream: streamName, .live))
        case let .inputFailed(error):
            // Nothing new will be encoded by this pipeline; the watchdog restarts it, and the
            // core fills the slots meanwhile (or they go stale, by policy).
            logger.error("input lost; serving what was recorded", metadata: ["error": "\(error)"])
            registry.apply(.phase(stream: streamName, .inputLost))
        case let .finished(endOfStream):
            // The input ended by itself, or the operator ended the stream: close the playlists.
            // A plain server stop leaves them open, so a restart continues the recording.
            if endOfStream && (stopEndsStream.withLock { $0 } ?? true) { endStream() }
        }
    }

    /// A remote encoder stopped pushing `variant` (its master leaves it out: `sideline push`
    /// dropped the rung for a weak uplink): its slots are filled as a failed variant's
    /// (`on_variant_failure`), until its segments come again.
    public func variantNotPushed(_ variant: String) {
        guard !core.withLock({ $0.slots.isFailed(variant) }) else { return }
        logger.notice("the encoder stopped pushing a variant; its slots are filled until it comes back",
                      metadata: ["variant": "\(variant)", "on_variant_failure": "\(stream.onVariantFailure.rawValue)"])
        registry.apply(.failure(stream: streamName, variant: variant, "not pushed: the encoder's master leaves it out (its uplink is too slow for it)"))
        withCore { c, _ in c.variantFailed(variant) }
    }

    /// Lists a finished segment as the core decides; the segment's bytes are staged for the
    /// writer just before what the core decided (when it lists them). Returns what the core
    /// made of it, once that is written and published.
    @discardableResult
    public func publish(_ segment: EncodedSegment, of variant: String) -> LiveStreamCore.Arrival {
        let arrival = withCore { c, jobs in
            c.segmentArrived(variant: variant, slot: segment.index, duration: segment.duration, programDateTime: segment.programDateTime,
                             now: registry.clock()) { jobs.append(.stage(segment, variant: variant)) }
        }
        switch arrival {
        case .afterEnd, .withheld:
            break
        case let .refused(.awaitingSeam(slot)):
            logger.notice("variant is back; its own segments follow at the next slot every variant tags", metadata: ["variant": "\(variant)", "slot": "\(slot)"])
            noteRecovered(variant)
        case let .refused(.unfinishedWhenShed(slot)):
            logger.info("the segment a shed rung was making, closed as it came back; its slot carries a sibling's copy", metadata: ["variant": "\(variant)", "slot": "\(slot)"])
        case let .refused(refusal):
            variantMetrics[variant]?.lateSegmentsDropped.increment()
            logger.warning("segment came after its slot was filled; dropped", metadata: ["variant": "\(variant)", "slot": "\(segment.index)", "refusal": "\(refusal)"])
        case let .replaces(entry):
            // The live playlist keeps what players saw; the recording takes the real segment.
            if !writer.replace(entry: entry, with: segment, in: variant) { variantMetrics[variant]?.lateSegmentsDropped.increment() }
        case let .listed(asGap, recovered, liveAgain):
            if liveAgain, registry.stream(named: streamName)?.phase == .inputLost { registry.apply(.phase(stream: streamName, .live)) }
            if recovered { noteRecovered(variant) }
            if let start = timings.withLock({ $0 })?.inputCompletion(segment: segment.index) {
                let latency = start.duration(to: .now)
                publishLatency.record(latency.inSeconds)
                streamMetrics.publishLatency.recordSeconds(latency.inSeconds)
            }
            if !asGap { checkBitRate(segment, of: variant) }
        }
        return arrival
    }

    /// Each segment's load of every rung goes to `handler` (the box's `LoadShedding`).
    func reportLoads(to handler: @escaping @Sendable (String, Bool, SegmentLoad) -> Void) {
        loadReports.withLock { $0 = handler }
    }

    /// The box gives `variant` up (`LoadShedding`): out of the master, its slots its sibling's
    /// segments. Said in /api/streams, /metrics and the log, with `why`.
    func shed(_ variant: String, why: String) {
        withCore { c, _ in c.shed(variant) }
        registry.apply(.failure(stream: streamName, variant: variant, "shed: \(why); its slots carry a sibling's segments"))
        variantMetrics[variant]?.shed.record(1)
        logger.warning("rung shed: out of the master, not encoded; its playlist carries a sibling's segments", metadata: ["variant": "\(variant)", "why": "\(why)"])
    }

    /// The box takes `variant` back: in the master again, its own segments from the next seam.
    func restore(_ variant: String, why: String) {
        withCore { c, _ in c.restore(variant) }
        registry.apply(.failure(stream: streamName, variant: variant, nil))
        variantMetrics[variant]?.shed.record(0)
        logger.notice("rung back: in the master again, encoded from the next segment", metadata: ["variant": "\(variant)", "why": "\(why)"])
    }

    /// `variant`'s encoder makes pictures again after it failed: its siblings' copies stop.
    private func noteRecovered(_ variant: String) {
        registry.apply(.failure(stream: streamName, variant: variant, nil))
        logger.notice("variant recovered; its own segments follow at the next slot every variant tags", metadata: ["variant": "\(variant)"])
    }

    /// BANDWIDTH must bound every segment's bit rate (RFC 8216 §4.3.4.2); say so when one does not.
    private func checkBitRate(_ segment: EncodedSegment, of variant: String) {
        guard let advertised = advertisedPeak[variant],
              let rate = Bandwidth.overrun(bytes: segment.bytes.count, duration: segment.duration, advertised: advertised) else { return }
        variantMetrics[variant]?.bandwidthExceeded.increment()
        // Warn once per new peak (the registry has already counted this segment), not per segment.
        let peak = registry.stream(named: streamName)?.variants[variant]?.status.recorded.peakBitRate ?? 0
        if rate >= peak {
            logger.warning("segment bit rate exceeds the advertised BANDWIDTH", metadata: [
                "variant": "\(variant)", "segment": "\(segment.index)", "bits-per-second": "\(Int(rate))", "bandwidth": "\(advertised)",
            ])
        }
    }

    /// Closes every playlist with EXT-X-ENDLIST; nothing is listed after it.
    public func endStream() {
        let alreadyEnded = withCore { c, jobs in
            guard c.end() else { return true }
            jobs.append(.end)
            return false
        }
        stopTicking()
        guard !alreadyEnded else { return }
        registry.apply(.phase(stream: streamName, .ended))
        logger.notice("stream ended: EXT-X-ENDLIST written", metadata: ["stream": "\(streamName)"])
    }
}
