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
        var masterWritten = false
        var hasAudio = true
        /// Set when the operator stops the server: whether that also ends the stream.
        var stopEndsStream: Bool?
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

    var streamName: String { stream.name }

    /// Call before stopping the pipeline.
    func prepareStop(endStream: Bool) {
        state.withLock { $0.stopEndsStream = endStream }
    }

    func handle(_ event: PipelineEvent) {
        switch event {
        case let .variantFormat(variant, format):
            let ready: [String: VariantFormat]? = state.withLock { s in
                s.formats[variant] = format
                guard !s.masterWritten, s.formats.count == stream.video.ladder.count else { return nil }
                s.masterWritten = true
                return s.formats
            }
            if let ready { writeMaster(ready) }
        case let .segment(variant, segment):
            publish(segment, of: variant)
        case let .variantFailed(variant, reason):
            logger.error("variant stopped", metadata: ["variant": "\(variant)", "reason": "\(reason)"])
        case let .inputFailed(error):
            logger.error("input failed; serving what was recorded", metadata: ["error": "\(error)"])
            registry.setPhase(stream: streamName, .failed)
        case let .finished(endOfStream):
            // The input ended by itself, or the operator ended the stream: close the playlists.
            // A plain server stop leaves them open, so a restart continues the recording.
            let stopEndsStream = state.withLock { $0.stopEndsStream }
            if endOfStream && (stopEndsStream ?? true) { end() }
        }
    }

    private func publish(_ segment: EncodedSegment, of variant: String) {
        guard let recorder = recorder.variants[variant] else { return }
        do {
            let recorded = try recorder.record(segment)
            registry.publish(
                stream: streamName, variant: variant, segmentName: recorded.name,
                file: .init(path: recorder.layout.segmentPath(variant, recorded.name), size: recorded.size, duration: segment.duration),
                playlistText: recorded.playlistText, iFramePlaylistText: recorded.iFramePlaylistText
            )
            variantMetrics[variant]?.segments.increment()
            variantMetrics[variant]?.bytes.increment(by: recorded.size)
            if let start = timings.withLock({ $0 })?.inputCompletion(segment: segment.index) {
                let latency = start.duration(to: .now)
                publishLatency.record(latency.inSeconds)
                streamMetrics.publishLatency.recordSeconds(latency.inSeconds)
            }
            checkBitRate(segment, of: variant)
        } catch {
            // The stream keeps serving what it has; the next segment tries again.
            variantMetrics[variant]?.writeErrors.increment()
            logger.error("segment not recorded", metadata: ["variant": "\(variant)", "error": "\(error)"])
        }
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

    private func writeMaster(_ formats: [String: VariantFormat]) {
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
        let text = MultivariantPlaylist(variants: variants, iFrameStreams: iFrameStreams, sessionData: sessionData, startOffset: stream.startOffset).render()
        do {
            try recorder.writeMasterPlaylist(text)
            registry.setMaster(stream: streamName, text: text)
        } catch {
            logger.error("master playlist not written", metadata: ["error": "\(error)"])
        }
    }

    private func end() {
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
