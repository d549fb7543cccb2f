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
        /// The published parts of each variant's segment being made, joined: what its entry
        /// holds if its encoder stops before the segment (`PlannedEntry.Content.listedParts`).
        var publishedParts: [String: PublishedParts] = [:]
        /// Entries the core listed with parts that the disk could not hold (listed as
        /// EXT-X-GAP instead), by variant and sequence number, with their durations: their
        /// parts are GAP parts in every edge published from then on (`marked`).
        var unwritten: [String: [Int: Double]] = [:]
    }

    private struct PublishedParts {
        var slot: Int
        var bytes: [UInt8] = []
        var duration = 0.0
    }

    init(recorder: StreamRecorder, registry: StreamRegistry, streamName: String, standIns: [String: StandIn], clock: SegmentClock,
         master: MasterAssembly, rates: [(name: String, rates: RungRates)], variantMetrics: [String: SidelineMetrics.Variant],
         logger: Logger) {
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
        }
    }

    /// A part of `variant`'s segment the core listed (`LiveStreamCore.partArrived`): published
    /// under its entry's sequence number with the edge the core decided (a new playlist
    /// version, its bytes served from memory), and kept, joined with the segment's earlier
    /// parts, for the entry that lists them if the encoder stops inside the segment.
    func partArrived(_ part: EncodedPart, of variant: String, listing: EdgeLedger.PartListing) {
        guard let edge = listing.edge, let target = recorder.variants[variant], !target.playlist.endList else { return }
        let marked = state.withLock { s -> LowLatencyEdge in
            if s.publishedParts[variant]?.slot != part.segment { s.publishedParts[variant] = PublishedParts(slot: part.segment) }
            s.publishedParts[variant]!.bytes += part.bytes
            s.publishedParts[variant]!.duration += part.duration
            return Self.marked(edge, unwritten: s.unwritten[variant])
        }
        registry.apply(.part(stream: streamName, variant: variant, .init(sequence: listing.sequence, index: part.index, bytes: part.bytes), edge: marked))
    }

    /// `edge` with the parts of entries the disk could not hold as GAP parts, as their entries are.
    private static func marked(_ edge: LowLatencyEdge, unwritten: [Int: Double]?) -> LowLatencyEdge {
        guard let unwritten, !unwritten.isEmpty else { return edge }
        var edge = edge
        let settings = PartLedger.Settings(partTarget: edge.partTarget, partsPerSegment: edge.partsPerSegment)
        for (sequence, duration) in unwritten where edge.listedParts[sequence]?.contains(where: { !$0.gap }) == true {
            edge.listedParts[sequence] = PartLedger.rendered(PartLedger.gapParts(duration: duration, settings: settings), of: sequence)
        }
        return edge
    }

    /// After `variant`'s entry `sequence` was recorded: the parts of its slot are not held any
    /// more, and an entry the core meant as media that went down as EXT-X-GAP is remembered
    /// (`unwritten`, the newest 64). The edge to publish it with.
    private func edgeAfterListing(_ edge: LowLatencyEdge?, of variant: String, slot: Int, sequence: Int, unwritten duration: Double?) -> LowLatencyEdge? {
        state.withLock { s in
            if let held = s.publishedParts[variant], held.slot <= slot { s.publishedParts[variant] = nil }
            if let duration, edge?.listedParts[sequence] != nil {
                s.unwritten[variant, default: [:]][sequence] = duration
                s.unwritten[variant] = s.unwritten[variant]?.filter { $0.key > sequence - 64 }
            }
            return edge.map { Self.marked($0, unwritten: s.unwritten[variant]) }
        }
    }

    /// The segment the core is about to list as `variant`'s next `.real` entry.
    func stage(_ segment: EncodedSegment, for variant: String) {
        state.withLock { $0.staged[variant] = segment }
    }

    // MARK: PublishingSink

    public func list(_ entry: PlannedEntry, in variant: String, sequence: Int, edge: LowLatencyEdge?) {
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
        checkNumbering(recorded.playlist.playlist.lastSequence, against: sequence, of: variant)
        // Meant as media, down as EXT-X-GAP (no file written): its parts are GAP parts too.
        let edge = edgeAfterListing(edge, of: variant, slot: entry.slot, sequence: sequence,
                                    unwritten: recorded.segmentWritten || entry.content == .gap ? nil : duration)
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

    public func listGaps(_ entries: [PlannedEntry], in variant: String, firstSequence: Int, edge: LowLatencyEdge?) {
        guard let target = recorder.variants[variant], !entries.isEmpty else { return }
        let recorded = target.listGaps(entries.map { ($0.duration, $0.programDateTime, $0.discontinuity) })
        checkNumbering(recorded.playlist.playlist.lastSequence, against: firstSequence + entries.count - 1, of: variant)
        let edge = edgeAfterListing(edge, of: variant, slot: entries[entries.count - 1].slot, sequence: firstSequence + entries.count - 1, unwritten: nil)
        registry.apply(.publish(.init(.gaps(Set(recorded.names)), stream: streamName, variant: variant, playlist: recorded.playlist, edge: edge)))
        variantMetrics[variant]?.gapSegments.increment(by: recorded.names.count)
        reportDisk(recorded.diskError, variant: variant)
    }

    /// The recorder numbers entries as the core does (`EdgeLedger`); said loudly if not, as a
    /// part would be listed under another entry's number.
    private func checkNumbering(_ recorded: Int, against decided: Int, of variant: String) {
        guard recorded != decided else { return }
        logger.error("internal: the recording numbered an entry differently from the stream's core; its parts may be listed under the wrong entry",
                     metadata: ["variant": "\(variant)", "recorded": "\(recorded)", "decided": "\(decided)"])
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
            try recorder.writeTimeline(Array(try JSONEncoder().encode(timeline)))
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
