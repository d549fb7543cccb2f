import Foundation
import HLSPlaylist
import Logging
import MediaPipeline
import Metrics
import MPEGTS
import OriginRegistry
import OriginState
import SegmentStore
import SidelineCore
import StreamPublishing
import Synchronization

/// Carries out what the publishing core decides (`PublishingEffect`, run by the stream's
/// `StreamEffectRunner`, one at a time): each entry is recorded on
/// disk (segment file first, then the playlist naming it) and only then published to the
/// registry the HTTP side reads; the master is rendered when its listing changes; the
/// timeline map is saved with the recording.
public final class PlaylistWriter: PublishingSink, Sendable {
    public let recorder: StreamRecorder
    let registry: StreamRegistry
    let streamName: String
    private let standIns: [String: StandIn]
    /// Where each slot starts on the timeline, for restamping stand-ins (and pushed segments).
    public let clock: SegmentClock
    /// The first video PTS of slot 0, in 90 kHz ticks: where the stand-ins, encoded at media
    /// time 0, start. Pushed segments are moved onto the same timeline (`PushedStream`).
    public let timestampOrigin: Int64
    private let master: MasterAssembly

    private let rates: [(name: String, rates: RungRates)]
    private let variantMetrics: [String: SidelineMetrics.Variant]
    private let logger: Logger
    private let state = Mutex(State())
    /// Serialises master writes: a format report (pipeline thread) and a listing change (the
    /// core) must not publish their renderings out of order.
    private let masterWrites = Mutex(())

    private struct State {
        /// The real segment each variant's next `.real` entry is made of.
        var staged: [String: EncodedSegment] = [:]
        /// Variants' real formats: the stand-in's until the pipeline reports its own.
        var formats: [String: VariantFormat] = [:]
        var masterListing: [String]?
        /// What a pusher said about its stream, in place of the config's (nil: the config's).
        var sessionData: [SessionData]?
        var writes = WriteHealth()
        /// Which parts each variant's playlist lists (Low-Latency HLS); unused without `parts`.
        var partLedger = PartLedger(keep: 1)
        /// The published parts of each variant's segment being made, joined: what its entry
        /// holds if its encoder stops before the segment (`PlannedEntry.Content.listedParts`).
        var publishedParts: [String: PublishedParts] = [:]
    }

    private struct PublishedParts {
        var slot: Int
        var bytes: [UInt8] = []
        var duration = 0.0
    }

    /// Low-Latency HLS: what parts are listed (nil: the stream lists none).
    let parts: PartLedger.Settings?

    init(recorder: StreamRecorder, registry: StreamRegistry, streamName: String, standIns: [String: StandIn], clock: SegmentClock,
         master: MasterAssembly, rates: [(name: String, rates: RungRates)], variantMetrics: [String: SidelineMetrics.Variant],
         parts: PartLedger.Settings?, targetDuration: Int, logger: Logger) {
        self.parts = parts
        self.recorder = recorder
        self.registry = registry
        self.streamName = streamName
        self.standIns = standIns
        self.clock = clock
        // Without a stand-in (`sideline encode`), the muxer's own: output time 0 is PTS 2.4 s
        // (SegmentMuxer's offset and mux delay, measured with ffprobe).
        timestampOrigin = standIns.values.lazy.compactMap { try? PushedSegmentCheck.inspect($0.bytes).get().firstPTS }.first ?? 216_000
        self.master = master
        self.rates = rates
        self.variantMetrics = variantMetrics
        self.logger = logger
        state.withLock { s in
            for (name, standIn) in standIns { s.formats[name] = standIn.format }
            s.partLedger = PartLedger(keep: PartLedger.kept(targetDuration: targetDuration, segmentDuration: clock.segmentDuration))
        }
    }

    /// A part of `variant`'s segment for `part.segment` is complete: listed (a new playlist
    /// version, its bytes served from memory) when that slot is the one the variant lists next
    /// and shows the camera (`PartLedger`). Called by the stream's serial runner, in the core's
    /// order, as `list` is.
    /// `entry`: the entry the core promised for the part's slot (`LiveStreamCore.partArrived`);
    /// its header lines (date ranges, discontinuity, date) go before the parts, as they will
    /// stand before the segment's EXTINF.
    func partArrived(_ part: EncodedPart, of variant: String, entry: PlannedEntry) {
        guard let parts, let target = recorder.variants[variant] else { return }
        let playlist = target.playlist
        guard !playlist.endList else { return }
        let nextSequence = playlist.lastSequence + 1
        let edge = state.withLock { s -> LowLatencyEdge? in
            let listed = s.partLedger.partArrived(variant: variant, slot: part.segment,
                                                  part: .init(index: part.index, duration: part.duration, independent: part.independent),
                                                  nextSlot: entry.slot, camera: true)
            guard listed else { return nil }
            if s.publishedParts[variant]?.slot != part.segment { s.publishedParts[variant] = PublishedParts(slot: part.segment) }
            s.publishedParts[variant]!.bytes += part.bytes
            s.publishedParts[variant]!.duration += part.duration
            var edge = s.partLedger.edge(of: variant, nextSequence: nextSequence, settings: parts)
            edge.openProgramDateTime = entry.programDateTime
            edge.openDiscontinuity = entry.discontinuity
            edge.openDateRanges = entry.dateRanges
            return edge
        }
        guard let edge else { return }
        registry.apply(.part(stream: streamName, variant: variant, .init(sequence: nextSequence, index: part.index, bytes: part.bytes), edge: edge))
    }

    /// After `variant`'s entry for `slot` was recorded as `sequence`: its parts move under it
    /// (`real`) or leave the playlist (a fill); a GAP entry of `gap` seconds lists GAP parts.
    /// The edge the publication carries; nil without parts.
    private func edgeAfterListing(_ variant: String, slot: Int, sequence: Int, real: Bool, gap: Double? = nil) -> LowLatencyEdge? {
        if let gap { return edgeAfterListingGaps(variant, [(slot, sequence, gap)]) }
        guard let parts else { return nil }
        return state.withLock { s in
            s.partLedger.entryListed(variant: variant, slot: slot, sequence: sequence, real: real)
            if let held = s.publishedParts[variant], held.slot <= slot { s.publishedParts[variant] = nil }
            return s.partLedger.edge(of: variant, nextSequence: sequence + 1, settings: parts)
        }
    }

    /// `edgeAfterListing` for GAP entries (one, or a batch for a long absence on the universal
    /// grid): the ledger takes each under one lock, and the edge is made once, after the last.
    private func edgeAfterListingGaps(_ variant: String, _ gaps: [(slot: Int, sequence: Int, duration: Double)]) -> LowLatencyEdge? {
        guard let parts, let last = gaps.last else { return nil }
        return state.withLock { s in
            for gap in gaps { s.partLedger.gapListed(variant: variant, slot: gap.slot, sequence: gap.sequence, duration: gap.duration, settings: parts) }
            return s.partLedger.edge(of: variant, nextSequence: last.sequence + 1, settings: parts)
        }
    }

    /// The segment the core is about to list as `variant`'s next `.real` entry.
    func stage(_ segment: EncodedSegment, for variant: String) {
        state.withLock { $0.staged[variant] = segment }
    }

    // MARK: PublishingSink

    public func list(_ entry: PlannedEntry, in variant: String) {
        guard let target = recorder.variants[variant] else { return }
        var body: VariantRecorder.Body = .gap
        var duration = entry.duration
        let material = EntryMaterial.of(entry, siblingEntry: { [recorder] name in
            recorder.variants[name]?.playlist.segments.dropFirst(target.count).first
        }, slotStart: clock.startTime(ofSegment:))
        switch material {
        case .staged:
            guard let segment = state.withLock({ $0.staged.removeValue(forKey: variant) }) else {
                logger.error("internal: a real entry without its segment; listed as EXT-X-GAP", metadata: ["variant": "\(variant)", "slot": "\(entry.slot)"])
                break
            }
            body = .segment(segment)
        case let .siblingFile(name, uri, sourceDuration):
            body = .file(path: recorder.layout.segmentPath(name, uri), keyframe: recorder.variants[name]?.keyframeRange(ofSegment: uri))
            duration = sourceDuration
        case let .standIn(offset, copy):
            guard let standIn = standIns[variant] else { break }
            do {
                body = .bytes(try TransportStreamRestamp.restamp(standIn.bytes, by: offset, copy: copy), keyframeRanges: standIn.keyframeRanges)
                duration = standIn.duration
            } catch {
                logger.error("stand-in cannot be restamped; listed as EXT-X-GAP", metadata: ["variant": "\(variant)", "error": "\(error)"])
            }
        case .listedParts:
            // The encoder stopped inside the segment: the entry is what its parts promised.
            if let held = state.withLock({ $0.publishedParts[variant] }), held.slot == entry.slot, !held.bytes.isEmpty {
                body = .bytes(held.bytes, keyframeRanges: [])
                duration = held.duration
            } else {
                logger.error("internal: a segment cut at its parts without them; listed as EXT-X-GAP", metadata: ["variant": "\(variant)", "slot": "\(entry.slot)"])
            }
        case .gap:
            break
        }
        switch entry.content {
        case .sibling: variantMetrics[variant]?.siblingSegments.increment()
        case .standIn: variantMetrics[variant]?.standInSegments.increment()
        case .real, .listedParts, .gap: break
        }
        let recorded = target.list(body, duration: duration, programDateTime: entry.programDateTime, discontinuity: entry.discontinuity, dateRanges: entry.dateRanges)
        // The camera's own segment, written as cut: exactly its parts one after another.
        let real = recorded.segmentWritten && ((entry.content == .real && material == .staged) || entry.content == .listedParts)
        let edge = edgeAfterListing(variant, slot: entry.slot, sequence: recorded.playlist.playlist.lastSequence, real: real,
                                    gap: recorded.segmentWritten ? nil : duration)
        if recorded.segmentWritten {
            registry.apply(.publish(.init(
                .segment(recorded.name, file: .init(path: recorder.layout.segmentPath(variant, recorded.name), size: recorded.size, duration: duration, fill: entry.content.fillName)),
                stream: streamName, variant: variant, playlist: recorded.playlist, iFrames: recorded.iFrames, edge: edge
            )))
            if case .real = entry.content {
                variantMetrics[variant]?.segments.increment()
                variantMetrics[variant]?.bytes.increment(by: recorded.size)
            }
        } else {
            // No file: listed as EXT-X-GAP, so players skip it and the playlist keeps pace.
            registry.apply(.publish(.init(.gap(recorded.name), stream: streamName, variant: variant, playlist: recorded.playlist, edge: edge)))
            variantMetrics[variant]?.gapSegments.increment()
        }
        reportDisk(recorded.diskError, variant: variant)
    }

    public func listGaps(_ entries: [PlannedEntry], in variant: String) {
        guard let target = recorder.variants[variant], !entries.isEmpty else { return }
        let recorded = target.listGaps(entries.map { ($0.duration, $0.programDateTime, $0.discontinuity) })
        let edge = edgeAfterListingGaps(variant, zip(entries, (recorded.playlist.playlist.lastSequence - entries.count + 1)...).map { ($0.slot, $1, $0.duration) })
        registry.apply(.publish(.init(.gaps(Set(recorded.names)), stream: streamName, variant: variant, playlist: recorded.playlist, edge: edge)))
        variantMetrics[variant]?.gapSegments.increment(by: recorded.names.count)
        reportDisk(recorded.diskError, variant: variant)
    }

    public func numberFrom(slot: Int) {
        for recorder in recorder.variants.values { recorder.startNumbering(at: slot) }
    }

    /// The recording takes `segment`, which came after its slot was filled, in place of entry
    /// `entry`'s fill; the live playlist keeps the fill (it only grows). False when it cannot
    /// (logged): the recording keeps the fill.
    func replace(entry: Int, with segment: EncodedSegment, in variant: String) -> Bool {
        guard let target = recorder.variants[variant] else { return false }
        // `entry` is an index among the entries (SlotPublisher.takeLate); the recorder asks for
        // the entry's media sequence number, which is not its index on the universal grid.
        let sequence = target.playlist.mediaSequence + entry
        switch target.replace(entry: sequence, with: segment.bytes, keyframeRanges: segment.keyframeRanges, duration: segment.duration) {
        case let .success(replaced):
            let name = replaced.replacement.uri
            registry.apply(.publish(.init(.replacement(name, file: .init(path: recorder.layout.segmentPath(variant, name), size: replaced.size, duration: segment.duration)),
                                   stream: streamName, variant: variant, playlist: replaced.playlist)))
            variantMetrics[variant]?.lateSegmentsRecorded.increment()
            reportDisk(replaced.diskError, variant: variant)
            return true
        case let .failure(refusal):
            if case let .notWritten(error) = refusal { reportDisk(error, variant: variant) }
            logger.warning("a late segment could not take its fill's place in the recording; the recording keeps the fill",
                           metadata: ["variant": "\(variant)", "entry": "\(entry)", "reason": "\(refusal)"])
            return false
        }
    }

    public func masterChanged(listing variants: [String]) {
        state.withLock { $0.masterListing = variants }
        writeMaster()
    }

    public func timelineChanged(_ timeline: StreamTimeline) {
        do {
            try AtomicFile.write(Array(try JSONEncoder().encode(timeline)), to: recorder.layout.timelinePath)
        } catch {
            logger.error("timeline map not written; a restart may continue the timestamps from an earlier point", metadata: ["error": "\(error)"])
        }
    }

    /// Closes every variant's playlist with EXT-X-ENDLIST (the stream ended) and publishes it.
    func closeEveryPlaylist() {
        for (name, variant) in recorder.variants {
            do {
                let ended = try variant.end()
                registry.apply(.publish(.init(.playlists, stream: streamName, variant: name, playlist: ended.playlist, iFrames: ended.iFrames)))
            } catch {
                logger.error("cannot write EXT-X-ENDLIST", metadata: ["variant": "\(name)", "error": "\(error)"])
            }
        }
    }

    // MARK: Master

    /// The master's EXT-X-SESSION-DATA from now on (a pushed stream's metadata).
    public func setSessionData(_ sessionData: [SessionData]) {
        state.withLock { $0.sessionData = sessionData }
        writeMaster()
    }

    /// The pipeline reported a variant's real format (from its first SPS).
    public func noteFormat(_ format: VariantFormat, of variant: String) {
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
        let (listing, formats, sessionData) = state.withLock { ($0.masterListing, $0.formats, $0.sessionData) }
        guard let listing else { return }
        let rungs = rates.map { MasterAssembly.Rung(name: $0.name, rates: $0.rates, format: formats[$0.name]) }
        var master = self.master
        if let sessionData { master.sessionData = sessionData }
        guard let (served, recorded) = master.masters(rungs: rungs, listing: listing) else {
            logger.error("master playlist not rendered: a variant's format is unknown", metadata: ["listing": "\(listing)"])
            return
        }
        if let recorded {
            do {
                try recorder.writeMasterPlaylist(recorded.render())
            } catch {
                logger.error("master playlist not written", metadata: ["error": "\(error)"])
            }
        }
        registry.apply(.master(stream: streamName, served))
    }

    /// A disk that refuses writes is reported loudly, once when it starts and once when it
    /// recovers (log, `/api/streams`, and a metric for every failed write); what is recorded
    /// stays served meanwhile.
    private func reportDisk(_ error: StoreError?, variant: String) {
        let change = state.withLock { $0.writes.record(failed: error != nil, variant: variant) }
        if let error {
            variantMetrics[variant]?.writeErrors.increment()
            registry.apply(.writeError(stream: streamName, variant: variant, error.description))
            if change == .startedFailing {
                logger.critical("cannot write to the data directory; segments are listed as EXT-X-GAP until it can",
                                metadata: ["variant": "\(variant)", "error": "\(error)"])
            }
        } else if change == .recovered {
            registry.apply(.writeError(stream: streamName, variant: variant, nil))
            logger.notice("writing to the data directory again", metadata: ["variant": "\(variant)"])
        }
    }
}
