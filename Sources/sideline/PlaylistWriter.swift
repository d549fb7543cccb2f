import Foundation
import HLSOrigin
import HLSPlaylist
import Logging
import MediaPipeline
import SegmentStore
import StreamPublishing
import Synchronization

/// Carries out what the publishing core decides (`PublishingSink`): each entry is recorded on
/// disk (segment file first, then the playlist naming it) and only then published to the
/// registry the HTTP side reads; the master is rendered when its listing changes; the
/// timeline map is saved with the recording.
final class PlaylistWriter: PublishingSink, Sendable {
    let recorder: StreamRecorder
    let registry: StreamRegistry
    let streamName: String
    private let standIns: [String: StandIn]
    /// Where each slot starts on the timeline, for restamping stand-ins.
    private let clock: SegmentClock
    private let master: MasterAssembly
    private let rates: [(name: String, rates: RungRates)]
    private let variantMetrics: [String: SidelineMetrics.Variant]
    private let logger: Logger
    private let state = Mutex(State())
    /// Serialises master writes: a format report (pipeline thread) and a listing change (the
    /// core) must not publish their renderings out of order.
    private let masterWrites = Mutex(())

    private struct State {
        /// The real segment each variant's next `.real` entry is made of, with what the
        /// input-loss policy adds to it.
        var pending: [String: Pending] = [:]
        /// Variants' real formats: the stand-in's until the pipeline reports its own.
        var formats: [String: VariantFormat] = [:]
        var masterListing: [String]?
        /// Variants whose last write to the data directory failed.
        var failingWrites: Set<String> = []
    }

    struct Pending: Sendable {
        var segment: EncodedSegment
        /// With `on_input_loss: gap`, a slate segment is listed as EXT-X-GAP instead.
        var asGap = false
        var dateRanges: [DateRange] = []
        var discontinuity = false
    }

    init(recorder: StreamRecorder, registry: StreamRegistry, streamName: String, standIns: [String: StandIn], clock: SegmentClock,
         master: MasterAssembly, rates: [(name: String, rates: RungRates)], variantMetrics: [String: SidelineMetrics.Variant], logger: Logger) {
        self.recorder = recorder
        self.registry = registry
        self.streamName = streamName
        self.standIns = standIns
        self.clock = clock
        self.master = master
        self.rates = rates
        self.variantMetrics = variantMetrics
        self.logger = logger
        state.withLock { s in
            for (name, standIn) in standIns { s.formats[name] = standIn.format }
        }
    }

    func setPending(_ pending: Pending?, for variant: String) {
        state.withLock { $0.pending[variant] = pending }
    }

    // MARK: PublishingSink

    func list(_ entry: PlannedEntry, in variant: String) {
        guard let target = recorder.variants[variant] else { return }
        var body: VariantRecorder.Body = .gap
        var duration = entry.duration
        var programDateTime = entry.programDateTime
        var dateRanges = entry.dateRanges
        var discontinuity = entry.discontinuity
        switch entry.content {
        case .real:
            guard let pending = state.withLock({ $0.pending.removeValue(forKey: variant) }) else {
                logger.error("internal: a real entry without its segment; listed as EXT-X-GAP", metadata: ["variant": "\(variant)", "slot": "\(entry.slot)"])
                break
            }
            if !pending.asGap { body = .bytes(pending.segment.bytes, keyframeRanges: pending.segment.keyframeRanges) }
            duration = pending.segment.duration
            programDateTime = pending.segment.programDateTime
            dateRanges = pending.dateRanges + dateRanges
            discontinuity = discontinuity || pending.discontinuity
        case let .sibling(name):
            // The sibling's entry for the same slot has the same index: variants stay aligned.
            let index = target.count
            if let sibling = recorder.variants[name], let source = sibling.playlist.segments.dropFirst(index).first, !source.gap {
                body = .file(path: recorder.layout.segmentPath(name, source.uri), keyframe: sibling.keyframeRange(ofSegment: source.uri))
                duration = source.duration
            }
            variantMetrics[variant]?.siblingSegments.increment()
        case let .standIn(copy):
            if let standIn = standIns[variant] {
                let offset = Int64((clock.startTime(ofSegment: entry.slot) * 90_000).rounded())
                do {
                    body = .bytes(try TransportStreamRestamp.restamp(standIn.bytes, by: offset, copy: copy), keyframeRanges: standIn.keyframeRanges)
                    duration = standIn.duration
                } catch {
                    logger.error("stand-in cannot be restamped; listed as EXT-X-GAP", metadata: ["variant": "\(variant)", "error": "\(error)"])
                }
            }
            variantMetrics[variant]?.standInSegments.increment()
        case .gap:
            break
        }
        let recorded = target.list(body, duration: duration, programDateTime: programDateTime, discontinuity: discontinuity, dateRanges: dateRanges)
        if recorded.segmentWritten {
            registry.publish(
                stream: streamName, variant: variant, segmentName: recorded.name,
                file: .init(path: recorder.layout.segmentPath(variant, recorded.name), size: recorded.size, duration: duration),
                playlist: recorded.playlist, iFrames: recorded.iFrames
            )
            if case .real = entry.content {
                variantMetrics[variant]?.segments.increment()
                variantMetrics[variant]?.bytes.increment(by: recorded.size)
            }
        } else {
            // No file: listed as EXT-X-GAP, so players skip it and the playlist keeps pace.
            registry.publishGaps(stream: streamName, variant: variant, segmentNames: [recorded.name], playlist: recorded.playlist)
            variantMetrics[variant]?.gapSegments.increment()
        }
        reportDisk(recorded.diskError, variant: variant)
    }

    func masterChanged(listing variants: [String]) {
        state.withLock { $0.masterListing = variants }
        writeMaster()
    }

    func timelineChanged(_ timeline: StreamTimeline) {
        do {
            try AtomicFile.write(Array(try JSONEncoder().encode(timeline)), to: recorder.layout.timelinePath)
        } catch {
            logger.error("timeline map not written; a restart may continue the timestamps from an earlier point", metadata: ["error": "\(error)"])
        }
    }

    // MARK: Master

    /// The pipeline reported a variant's real format (from its first SPS).
    func noteFormat(_ format: VariantFormat, of variant: String) {
        let changed = state.withLock { s in
            defer { s.formats[variant] = format }
            return s.formats[variant] != format
        }
        if changed { writeMaster() }
    }

    /// Served: the core's listing (every variant whose playlist answers 200). On disk: every
    /// variant, so a restart lists them all again.
    private func writeMaster() {
        masterWrites.withLock { _ in writeMasterNow() }
    }

    private func writeMasterNow() {
        let (listing, formats) = state.withLock { ($0.masterListing, $0.formats) }
        guard let listing else { return }
        let rungs = rates.map { MasterAssembly.Rung(name: $0.name, rates: $0.rates, format: formats[$0.name]) }
        guard let served = master.playlist(rungs: rungs, listing: listing) else {
            logger.error("master playlist not rendered: a variant's format is unknown", metadata: ["listing": "\(listing)"])
            return
        }
        if let full = master.playlist(rungs: rungs, listing: rates.map(\.name)) {
            do {
                try recorder.writeMasterPlaylist(full.render())
            } catch {
                logger.error("master playlist not written", metadata: ["error": "\(error)"])
            }
        }
        registry.setMaster(stream: streamName, text: served.render())
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
}
