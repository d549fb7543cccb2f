import Foundation
import HLSOrigin
import HLSPlaylist
import Logging
import MediaPipeline
import SegmentStore
import SidelineConfig
import Synchronization

/// Takes the pipeline's events, on the pipeline's threads, and makes them visible: each
/// segment is recorded on disk (segment first, then the playlist) and only then published to
/// the registry the HTTP side reads. Builds the master playlist once every variant's real
/// format is known.
final class StreamPublisher: Sendable {
    let registry: StreamRegistry
    private let recorder: StreamRecorder
    private let configuration: SidelineConfiguration
    private let stream: StreamSettings
    private let logger: Logger
    private let state = Mutex(State())
    /// Publish latency of every segment of every variant: from the input thread reading the
    /// segment's last frame to the registry serving it.
    let publishLatency = LatencyRecorder()
    private let timings = Mutex<SegmentTimings?>(nil)
    let streamMetrics: SidelineMetrics.Stream
    private let variantMetrics: [String: SidelineMetrics.Variant]

    /// Where the pipeline notes when each segment's input was complete.
    func measureLatency(from timings: SegmentTimings) { self.timings.withLock { $0 = timings } }

    private struct State {
        var formats: [String: VariantFormat] = [:]
        /// Variants whose encoder failed: their playlists get EXT-X-GAP entries in step with
        /// the others, and the master served to new clients leaves them out.
        var failed: Set<String> = []
        /// Input outages of this run, oldest first.
        var outages: [Outage] = []
        /// Variants whose last write to the data directory failed.
        var failingWrites: Set<String> = []
        var hasAudio = true
        /// Set when the operator stops the server: whether that also ends the stream.
        var stopEndsStream: Bool?
        /// Entries every variant had when the current pipeline started: its segment N is entry
        /// `runBase + N`. A recovered variant's segment whose entry is already a GAP is late.
        var runBase = 0
        /// Whether a pipeline already ran in this process (a new one starts after a break).
        var hasRun = false
        /// The input could not be opened: the stream shows as input-lost until a camera
        /// segment is published.
        var inputUnavailable = false
    }

    /// One input outage: which segments the slate fills, and when it began and ended.
    struct Outage {
        let since: Date
        let firstSlateSegment: Int
        var restoredAt: Date?
        var firstLiveSegment: Int?
        /// Variants whose playlist already carries the opening EXT-X-DATERANGE.
        var opened: Set<String> = []

        func contains(segment index: Int) -> Bool {
            index >= firstSlateSegment && (firstLiveSegment.map { index < $0 } ?? true)
        }
    }

    /// What a finished segment is, given the outages: the camera's, the slate's, or the
    /// camera's first after an outage.
    private enum Role {
        case camera
        case slate(openingDateRange: DateRange?)
        case firstAfterOutage(DateRange)
    }

    init(configuration: SidelineConfiguration, stream: StreamSettings, recorder: StreamRecorder, registry: StreamRegistry, logger: Logger) {
        self.configuration = configuration
        self.stream = stream
        self.streamMetrics = SidelineMetrics.Stream(stream: stream.name)
        self.variantMetrics = Dictionary(uniqueKeysWithValues: stream.video.ladder.map { ($0.name, SidelineMetrics.Variant(stream: stream.name, variant: $0.name)) })
        self.recorder = recorder
        self.registry = registry
        self.logger = logger
    }

    var hasAudio: Bool {
        get { state.withLock { $0.hasAudio } }
        set { state.withLock { $0.hasAudio = newValue } }
    }

    /// Call before a pipeline's events reach this publisher: the first one, or one that
    /// replaces a pipeline the watchdog abandoned. A replacement's timestamps start again, so
    /// its first segment in every variant carries EXT-X-DISCONTINUITY; its outages are its own.
    func beginRun(of pipeline: LivePipeline) {
        measureLatency(from: pipeline.timings)
        let base = recorder.variants.values.map(\.count).max() ?? 0
        let isRestart = state.withLock { s in
            s.hasAudio = pipeline.hasAudio
            s.runBase = base
            s.outages = []
            defer { s.hasRun = true }
            return s.hasRun
        }
        guard isRestart else { return }
        for variant in recorder.variants.values { variant.breakContinuity() }
    }

    /// The pipeline could not be opened: shown as input-lost (`/api/streams`, console) until
    /// the camera's segments are published again.
    func noteInputUnavailable() {
        state.withLock { $0.inputUnavailable = true }
        let phase = registry.stream(named: streamName)?.phase
        if phase != .ended && phase != .removed { registry.setPhase(stream: streamName, .inputLost) }
    }

    var streamName: String { stream.name }

    /// Call before stopping the pipeline.
    func prepareStop(endStream: Bool) {
        state.withLock { $0.stopEndsStream = endStream }
    }

    func handle(_ event: PipelineEvent) {
        switch event {
        case let .variantFormat(variant, format):
            state.withLock { $0.formats[variant] = format }
            writeMasterWhenComplete()
        case let .segment(variant, segment):
            publish(segment, of: variant)
        case let .variantFailed(variant, reason):
            logger.error("variant failed; its playlist continues with EXT-X-GAP entries and the master leaves it out",
                         metadata: ["variant": "\(variant)", "reason": "\(reason)"])
            registry.setFailure(stream: streamName, variant: variant, reason)
            variantMetrics[variant]?.failures.increment()
            state.withLock { _ = $0.failed.insert(variant) }
            if let sibling = recorder.variants.values.filter({ $0.variant != variant }).max(by: { $0.count < $1.count }),
               let last = sibling.playlist.segments.last {
                fillGaps(upTo: sibling.count, like: last)
            }
            writeMasterWhenComplete()
        case let .inputLost(reason, since, firstSlateSegment):
            state.withLock { $0.outages.append(Outage(since: since, firstSlateSegment: firstSlateSegment)) }
            registry.setPhase(stream: streamName, .inputLost)
            streamMetrics.inputLosses.increment()
            logger.error("input lost; reconnecting", metadata: ["policy": "\(stream.onInputLoss.rawValue)", "reason": "\(reason)"])
        case let .inputRestored(at, firstLiveSegment):
            state.withLock { s in
                guard !s.outages.isEmpty else { return }
                s.outages[s.outages.count - 1].restoredAt = at
                s.outages[s.outages.count - 1].firstLiveSegment = firstLiveSegment
            }
            registry.setPhase(stream: streamName, .live)
        case let .inputFailed(error):
            // Nothing new will be published: the playlists go stale (404) after 1.5 target
            // durations, and what was recorded stays served.
            logger.error("input lost; serving what was recorded", metadata: ["error": "\(error)"])
            registry.setPhase(stream: streamName, .inputLost)
        case let .finished(endOfStream):
            // The input ended by itself, or the operator ended the stream: close the playlists.
            // A plain server stop leaves them open, so a restart continues the recording.
            let stopEndsStream = state.withLock { $0.stopEndsStream }
            if endOfStream && (stopEndsStream ?? true) { endStream() }
        }
    }

    private func role(of segment: EncodedSegment, variant: String) -> Role {
        state.withLock { s in
            for i in s.outages.indices.reversed() {
                let outage = s.outages[i]
                if outage.contains(segment: segment.index) {
                    let opening = s.outages[i].opened.insert(variant).inserted
                    return .slate(openingDateRange: opening ? DateRange.inputLost(since: outage.since) : nil)
                }
                if outage.firstLiveSegment == segment.index, let restoredAt = outage.restoredAt {
                    return .firstAfterOutage(DateRange.inputLost(since: outage.since, until: restoredAt))
                }
            }
            return .camera
        }
    }

    private func publish(_ segment: EncodedSegment, of variant: String) {
        guard let recorder = recorder.variants[variant] else { return }
        guard takeBack(variant, at: segment) else { return }
        var dateRanges: [DateRange] = []
        var afterOutage = false
        switch role(of: segment, variant: variant) {
        case .camera:
            let wasUnavailable = state.withLock { s in
                defer { s.inputUnavailable = false }
                return s.inputUnavailable
            }
            if wasUnavailable, registry.stream(named: streamName)?.phase == .inputLost { registry.setPhase(stream: streamName, .live) }
        case let .slate(opening):
            dateRanges = opening.map { [$0] } ?? []
            switch stream.onInputLoss {
            case .slate:
                break
            case .gap:
                publishGap(for: segment, of: variant, dateRanges: dateRanges)
                return
            case .stale:
                return
            }
        case let .firstAfterOutage(range):
            // The closing tag; with `stale` nothing carried the opening one, so this one is all.
            dateRanges = [range]
            afterOutage = true
        }
        let recorded = recorder.record(segment, dateRanges: dateRanges, discontinuity: afterOutage)
        if recorded.segmentWritten {
            registry.publish(
                stream: streamName, variant: variant, segmentName: recorded.name,
                file: .init(path: recorder.layout.segmentPath(variant, recorded.name), size: recorded.size, duration: segment.duration),
                playlistText: recorded.playlistText, iFramePlaylistText: recorded.iFramePlaylistText
            )
            variantMetrics[variant]?.segments.increment()
            variantMetrics[variant]?.bytes.increment(by: recorded.size)
        } else {
            // Not on disk: listed as EXT-X-GAP, so players skip it and the playlist keeps pace.
            registry.publishGaps(stream: streamName, variant: variant, segmentNames: [recorded.name], playlistText: recorded.playlistText)
            variantMetrics[variant]?.gapSegments.increment()
        }
        reportDisk(recorded.diskError, variant: variant)
        fillGaps(upTo: recorded.sequence + 1 - recorder.playlist.mediaSequence, like: recorded.segment)
        if let start = timings.withLock({ $0 })?.inputCompletion(segment: segment.index) {
            let latency = start.duration(to: .now)
            publishLatency.record(latency.inSeconds)
            streamMetrics.publishLatency.recordSeconds(latency.inSeconds)
        }
        if recorded.segmentWritten { checkBitRate(segment, of: variant) }
    }

    /// A failed variant's first segment from a new encoder (see `VariantWorker`): it takes its
    /// place again if its entry is not yet listed as a GAP, and the master lists the variant
    /// again. Its first entry carries EXT-X-DISCONTINUITY (it follows GAP entries). False
    /// when the segment comes too late for its entry, which is already a GAP.
    private func takeBack(_ variant: String, at segment: EncodedSegment) -> Bool {
        let (failed, base) = state.withLock { ($0.failed.contains(variant), $0.runBase) }
        guard failed, let recorder = recorder.variants[variant] else { return true }
        let entry = base + segment.index
        if recorder.count > entry { return false }
        listGaps(in: variant, upTo: entry, like: Self.timing(of: segment))
        state.withLock { _ = $0.failed.remove(variant) }
        registry.setFailure(stream: streamName, variant: variant, nil)
        logger.notice("variant recovered; its playlist continues after EXT-X-DISCONTINUITY and the master lists it again",
                      metadata: ["variant": "\(variant)", "entry": "\(entry)"])
        writeMasterWhenComplete()
        return true
    }

    /// A disk that refuses writes is reported loudly, once when it starts and once when it
    /// recovers (log, `/api/streams`, and a metric for every failed write); what is recorded
    /// stays served meanwhile.
    private func reportDisk(_ error: StoreError?, variant: String) {
        let wasFailing = state.withLock { s in
            error == nil ? s.failingWrites.remove(variant) != nil : !s.failingWrites.insert(variant).inserted
        }
        if let error {
            variantMetrics[variant]?.writeErrors.increment()
            registry.setWriteError(stream: streamName, variant: variant, error.description)
            if !wasFailing {
                logger.critical("cannot write to the data directory; segments are listed as EXT-X-GAP until it can",
                                metadata: ["variant": "\(variant)", "error": "\(error)"])
            }
        } else if wasFailing {
            registry.setWriteError(stream: streamName, variant: variant, nil)
            logger.notice("writing to the data directory again", metadata: ["variant": "\(variant)"])
        }
    }

    /// With `on_input_loss: gap`, a slate segment is listed as EXT-X-GAP instead of written.
    private func publishGap(for segment: EncodedSegment, of variant: String, dateRanges: [DateRange]) {
        guard let recorder = recorder.variants[variant] else { return }
        listGaps(in: variant, upTo: recorder.count + 1, like: Self.timing(of: segment), dateRanges: dateRanges)
    }

    /// Brings every failed variant's playlist to `count` entries with EXT-X-GAP entries timed
    /// like a sibling's segment, so segment N is the same media time in every variant.
    private func fillGaps(upTo count: Int, like entry: MediaSegment) {
        for name in state.withLock({ $0.failed }) { listGaps(in: name, upTo: count, like: entry) }
    }

    /// The one way GAP entries are added: recorded (playlist on disk), published to the
    /// registry, counted, and a failed playlist write reported.
    private func listGaps(in variant: String, upTo count: Int, like entry: MediaSegment, dateRanges: [DateRange] = []) {
        guard let gaps = recorder.variants[variant]?.recordGaps(upTo: count, like: entry, dateRanges: dateRanges) else { return }
        registry.publishGaps(stream: streamName, variant: variant, segmentNames: gaps.names, playlistText: gaps.playlistText)
        variantMetrics[variant]?.gapSegments.increment(by: gaps.names.count)
        reportDisk(gaps.diskError, variant: variant)
    }

    /// A segment's timing (duration, capture time) as a playlist entry, for GAP entries in its place.
    private static func timing(of segment: EncodedSegment) -> MediaSegment {
        MediaSegment(uri: "", duration: segment.duration, programDateTime: segment.programDateTime)
    }

    /// BANDWIDTH must bound every segment's bit rate (RFC 8216 §4.3.4.2); say so when one does not.
    private func checkBitRate(_ segment: EncodedSegment, of variant: String) {
        guard segment.duration > 0, let spec = stream.video.ladder.first(where: { $0.name == variant }) else { return }
        let rate = Double(segment.bytes.count * 8) / segment.duration
        let advertised = Double(Bandwidth.peak(of: spec, frameRate: stream.video.frameRate, audio: configuration.audio, hasAudio: hasAudio))
        guard rate > advertised else { return }
        variantMetrics[variant]?.bandwidthExceeded.increment()
        // Warn once per new peak (the registry has already counted this segment), not per segment.
        let peak = registry.stream(named: streamName)?.variants[variant]?.recorded.peakBitRate ?? 0
        if rate >= peak {
            logger.warning("segment bit rate exceeds the advertised BANDWIDTH", metadata: [
                "variant": "\(variant)", "segment": "\(segment.index)", "bits-per-second": "\(Int(rate))", "bandwidth": "\(Int(advertised))",
            ])
        }
    }

    /// Once every variant's format is known (or its encoder failed before it was), writes the
    /// master: on disk with every variant that has a format (a restart brings them all back),
    /// and to new clients without the failed ones, so they do not pick a variant with gaps.
    private func writeMasterWhenComplete() {
        let ready: (formats: [String: VariantFormat], failed: Set<String>)? = state.withLock { s in
            guard s.formats.keys.count + s.failed.subtracting(s.formats.keys).count == stream.video.ladder.count else { return nil }
            return (s.formats, s.failed)
        }
        guard let ready else { return }
        let full = masterText(ready.formats)
        let served = ready.failed.isEmpty ? full : masterText(ready.formats.filter { !ready.failed.contains($0.key) })
        do {
            try recorder.writeMasterPlaylist(full)
        } catch {
            logger.error("master playlist not written", metadata: ["error": "\(error)"])
        }
        registry.setMaster(stream: streamName, text: served)
    }

    private func masterText(_ formats: [String: VariantFormat]) -> String {
        let audio = hasAudio
        let variants = stream.video.ladder.compactMap { spec -> VariantStream? in
            guard let format = formats[spec.name] else { return nil }
            return VariantStream(
                uri: "\(spec.name)/\(StreamLayout.mediaPlaylistName)",
                bandwidth: Bandwidth.peak(of: spec, frameRate: stream.video.frameRate, audio: configuration.audio, hasAudio: audio),
                averageBandwidth: Bandwidth.average(of: spec, frameRate: stream.video.frameRate, audio: configuration.audio, hasAudio: audio),
                codecs: format.codecs,
                resolution: .init(width: format.width, height: format.height),
                frameRate: format.frameRate,
                videoRange: "SDR",
                noClosedCaptions: true
            )
        }
        let iFrameStreams = stream.video.ladder.compactMap { spec -> IFrameStream? in
            guard let format = formats[spec.name], let video = format.codecs.first else { return nil }
            return IFrameStream(
                uri: "\(spec.name)/\(StreamLayout.iFramePlaylistName)",
                bandwidth: Bandwidth.iFramePeak(of: spec, segmentDuration: configuration.segmentDuration, frameRate: stream.video.frameRate),
                codecs: [video], resolution: .init(width: format.width, height: format.height)
            )
        }
        let sessionData = [("title", stream.title), ("description", stream.description), ("keywords", stream.keywords)]
            .filter { !$0.1.isEmpty }
            .map { SessionData(dataID: "com.sideline.\($0.0)", value: $0.1) }
        return MultivariantPlaylist(variants: variants, iFrameStreams: iFrameStreams, sessionData: sessionData, startOffset: stream.startOffset).render()
    }

    /// Closes every playlist with EXT-X-ENDLIST.
    func endStream() {
        for (name, variant) in recorder.variants {
            do {
                let text = try variant.end()
                registry.updatePlaylists(stream: streamName, variant: name, text: text, iFramesText: variant.iFramePlaylistText)
            } catch {
                logger.error("cannot write EXT-X-ENDLIST", metadata: ["variant": "\(name)", "error": "\(error)"])
            }
        }
        registry.setPhase(stream: streamName, .ended)
        logger.notice("stream ended: EXT-X-ENDLIST written", metadata: ["stream": "\(streamName)"])
    }
}

/// The bit rates advertised in the master playlist, from the encoder's VBV settings.
enum Bandwidth {
    /// MPEG-TS costs, on top of the elementary streams: 4 header bytes in every 188-byte
    /// packet, and per access unit a PES header and a last packet that is only partly filled
    /// (bounded here by one whole packet per video frame and per AAC frame), plus PAT and PMT
    /// repeated ten times a second by libavformat. A fixed 10% was too little for low rungs:
    /// a 250 kb/s 180p variant measured 474 kb/s against 443 kb/s advertised.
    static func transport(payloadBitsPerSecond payload: Int, frameRate: Double, audioFramesPerSecond: Double) -> Int {
        let packetsPerSecond = frameRate + audioFramesPerSecond + 2 * 10
        return Int((Double(payload) * 188 / 184 + packetsPerSecond * 188 * 8).rounded(.up))
    }

    private static func audioFrames(_ audio: AudioSettings, _ hasAudio: Bool) -> Double {
        hasAudio ? Double(audio.sampleRate) / 1024 : 0
    }

    static func peak(of variant: VariantSettings, frameRate: Double, audio: AudioSettings, hasAudio: Bool) -> Int {
        transport(payloadBitsPerSecond: variant.maxrate.bitsPerSecond + (hasAudio ? audio.bitrate.bitsPerSecond : 0),
                  frameRate: frameRate, audioFramesPerSecond: audioFrames(audio, hasAudio))
    }

    static func average(of variant: VariantSettings, frameRate: Double, audio: AudioSettings, hasAudio: Bool) -> Int {
        transport(payloadBitsPerSecond: variant.bitrate.bitsPerSecond + (hasAudio ? audio.bitrate.bitsPerSecond : 0),
                  frameRate: frameRate, audioFramesPerSecond: audioFrames(audio, hasAudio))
    }

    /// An I-frame entry is one IDR shown for a segment's duration. The VBV model bounds any one
    /// frame by `bufsize`, so bufsize over the shortest interval between IDRs (D minus one
    /// frame) bounds the I-frame playlist's peak. An honest upper bound, well above the
    /// typical IDR rate.
    static func iFramePeak(of variant: VariantSettings, segmentDuration: Double, frameRate: Double) -> Int {
        let shortestInterval = max(segmentDuration - 1 / frameRate, 1 / frameRate)
        return Int((Double(variant.bufsize.bitsPerSecond) / shortestInterval * 188 / 184).rounded(.up)) + 2 * 188 * 8
    }
}
