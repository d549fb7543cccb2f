import Foundation
import HLSOrigin
import HLSPlaylist
import Logging
import MediaPipeline
import MPEGTS
import OriginPolicy
import SegmentStore
import SidelineConfig
import SidelineCore
import StreamPushing
import StreamPublishing
import Synchronization

/// One stream a remote encoder pushes (`ingest_token` in the config, no `input`): carries out
/// what the ingest's ledger (`IngestLedger`, pure) decides. A segment upload is checked
/// (`PushedSegmentCheck`), kept under its pushed name among the received ones (atomically), and
/// noted; a media playlist upload makes the received segments it lists ready, and each goes,
/// restamped onto the stream's timeline, to the stream's `StreamPublisher`, the same core a
/// camera's pipeline feeds: stand-ins when the pusher goes quiet, EVENT playlists, markers,
/// VOD, clips and mirrors all follow from there.
public final class PushedStream: Sendable {
    public let plan: ServePlan
    public let publisher: StreamPublisher
    private let layout: StreamLayout
    private let ledger: Mutex<IngestLedger>
    private let frameRate: Double
    private let logger: Logger
    /// Uploads of this stream, segments and playlists, are carried out one at a time, in the
    /// order they arrive: a playlist must see every segment whose upload finished before it.
    private let uploads = Mutex(())
    private let totals = Mutex(PipelineStatistics())
    /// What this stream may make the server keep (`ingest` in the config).
    public let bounds: IngestBounds

    public init(plan: ServePlan, publisher: StreamPublisher, logger: Logger) {
        self.plan = plan
        self.publisher = publisher
        self.layout = plan.layout
        self.frameRate = plan.stream.video.frameRate
        self.logger = logger
        let ingest = plan.configuration.ingest
        self.bounds = IngestBounds(maxUploadsInFlight: ingest.maxUploadsInFlight, maxBufferedBytes: ingest.maxBufferedMegabytes << 20,
                                   maxPendingSegments: ingest.maxPendingSegments, maxUnplacedSegments: ingest.maxUnplacedSegments)
        let clock = publisher.writer.clock
        let settings = IngestLedger.Settings(variants: plan.stream.video.ladder.map(\.name), segmentDuration: plan.configuration.segmentDuration,
                                             slotStart: { clock.startTime(ofSegment: $0) }, timestampOrigin: publisher.writer.timestampOrigin,
                                             setEpoch: publisher.setTimeline?.epoch)
        // The encoder's session from before a restart, so its numbers keep their slots.
        let kept = FileManager.default.contents(atPath: plan.layout.ingestSessionPath).flatMap { try? JSONDecoder().decode(IngestLedger.Persisted.self, from: $0) }
        var ledger = IngestLedger(settings: settings, restoring: kept)
        Self.restoreReceived(into: &ledger, layout: layout, logger: logger)
        self.ledger = Mutex(ledger)
        // What the pusher last said about the stream wins over the config, across restarts.
        if let data = FileManager.default.contents(atPath: layout.metadataPath), let metadata = try? JSONDecoder().decode(StreamMetadata.self, from: data) {
            apply(metadata)
        }
    }


    public var name: String { plan.stream.name }
    /// What was listed so far (the ladder's first variant), for the status line.
    public var statistics: PipelineStatistics { totals.withLock { $0 } }
    public var token: String { plan.stream.ingestToken }

    /// Segments received before a restart and not listed yet are received still: their encoder
    /// was told so (201), and its next playlist will list them.
    private static func restoreReceived(into ledger: inout IngestLedger, layout: StreamLayout, logger: Logger) {
        for variant in ledger.settings.variants {
            let directory = layout.ingestDirectory(variant)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasSuffix(".ts") && !name.hasPrefix(".") {
                guard let data = FileManager.default.contents(atPath: "\(directory)/\(name)"),
                      case let .success(inspection) = PushedSegmentCheck.inspect([UInt8](data)),
                      case .success = ledger.segmentReceived(variant: variant, name: name, inspection: inspection) else {
                    try? FileManager.default.removeItem(atPath: "\(directory)/\(name)")
                    continue
                }
            }
        }
        let count = ledger.settings.variants.reduce(0) { $0 + ledger.pending($1).count }
        if count > 0 { logger.notice("pushed segments received before the restart wait for their playlist", metadata: ["segments": "\(count)"]) }
    }

    func receive(_ path: IngestPath, body: [UInt8]) -> Result<IngestReceipt, Refusal> {
        uploads.withLock { _ in
            switch path {
            case .master:
                receiveMaster(body)
            case let .mediaPlaylist(_, variant):
                receivePlaylist(body, of: variant)
            case let .segment(_, variant, name):
                receiveSegment(body, named: name, of: variant)
            case .metadata:
                receiveMetadata(body)
            }
        }
    }

    // MARK: Segments

    private func receiveSegment(_ bytes: [UInt8], named name: String, of variant: String) -> Result<IngestReceipt, Refusal> {
        if let rejection = ledger.withLock({ $0.check(variant: variant) }) { return .failure(refusal(rejection, variant: variant)) }
        let inspection: PushedSegmentCheck.Inspection
        switch PushedSegmentCheck.inspect(bytes) {
        case let .success(found): inspection = found
        case let .failure(failure): return .failure(.malformed("segment '\(name)' of variant '\(variant)': \(failure)").forOperators())
        }
        // Refused before anything is written; `segmentReceived` below then cannot refuse it.
        if let rejection = ledger.withLock({ $0.check(segment: name, of: variant, inspection: inspection) }) { return .failure(refusal(rejection, variant: variant)) }
        let (pending, replacing) = ledger.withLock { ledger in
            (ledger.settings.variants.reduce(0) { $0 + ledger.pending($1).count }, ledger.pending(variant).contains(name))
        }
        if let refused = bounds.refusal(pendingSegments: pending, replacing: replacing) {
            logger.warning("pushed segment refused: too many received and not listed", metadata: ["variant": "\(variant)", "segment": "\(name)", "pending": "\(pending)"])
            return .failure(refused)
        }
        let directory = layout.ingestDirectory(variant)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // The program tables first, in the order Sideline serves them. Written atomically: a
            // full disk leaves the name as it was, never a torn file.
            try AtomicFile.write(TransportStreamHeaders.patFirst(bytes), to: "\(directory)/\(name)")
        } catch {
            logger.error("pushed segment not kept", metadata: ["variant": "\(variant)", "segment": "\(name)", "error": "\(error)"])
            return .failure(Self.writeRefusal(error, "segment '\(name)' could not be kept"))
        }
        switch ledger.withLock({ $0.segmentReceived(variant: variant, name: name, inspection: inspection) }) {
        case let .success(replaced):
            return .success(IngestReceipt(created: !replaced, message: "received \(name) (\(DecimalFormat.compact(inspection.duration)) s); listed once a playlist lists it"))
        case let .failure(rejection):
            try? FileManager.default.removeItem(atPath: "\(directory)/\(name)")
            return .failure(refusal(rejection, variant: variant))
        }
    }

    // MARK: Playlists

    private func receivePlaylist(_ body: [UInt8], of variant: String) -> Result<IngestReceipt, Refusal> {
        guard let text = String(validating: body, as: UTF8.self) else {
            return .failure(.malformed("the playlist of variant '\(variant)' is not UTF-8 text").forOperators())
        }
        let (decided, before, after) = ledger.withLock { ledger in
            let before = ledger.persisted
            return (ledger.playlistReceived(variant: variant, text: text, now: Date()) { publisher.beginPushSession() }, before, ledger.persisted)
        }
        if after != before {
            // Kept before anything is listed, so a restart maps the encoder's numbers as this process did.
            do {
                try FileManager.default.createDirectory(atPath: (layout.ingestSessionPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try AtomicFile.write(Array(try JSONEncoder().encode(after)), to: layout.ingestSessionPath)
            } catch {
                logger.error("the ingest session could not be kept; after a restart the encoder's segments start a new session", metadata: ["error": "\(error)"])
            }
        }
        let listings: [IngestLedger.Listing]
        switch decided {
        case let .success(ready): listings = ready
        case let .failure(rejection): return .failure(refusal(rejection, variant: variant))
        }
        var listed = 0
        var recorded: [String] = []
        var late: [String] = []
        for listing in listings {
            let path = "\(layout.ingestDirectory(variant))/\(listing.name)"
            defer { try? FileManager.default.removeItem(atPath: path) }
            guard let data = FileManager.default.contents(atPath: path), let segment = restamped([UInt8](data), listing) else {
                logger.error("a received segment could not be read back; its slot is filled as if it never came", metadata: ["variant": "\(variant)", "segment": "\(listing.name)"])
                continue
            }
            switch publisher.publish(segment, of: variant) {
            case .listed:
                listed += 1
                if variant == plan.stream.video.ladder.first?.name {
                    totals.withLock { totals in
                        totals.segments += 1
                        totals.mediaTime += segment.duration
                        totals.bytesWritten += Int64(segment.bytes.count)
                    }
                }
            case .replaces: recorded.append(listing.name)
            case .refused:
                late.append(listing.name)
                keepUnplaced(segment, named: listing.name, of: variant)
            case .withheld, .afterEnd: break
            }
        }
        if !recorded.isEmpty {
            logger.notice("pushed segments came after their slots were filled: the live playlist keeps the stand-ins, the recording takes them",
                          metadata: ["variant": "\(variant)", "segments": "\(recorded.joined(separator: ","))"])
        }
        if !late.isEmpty {
            logger.warning("pushed segments came for slots that cannot take them (a real segment is there, or the server was down then); kept under unplaced/",
                           metadata: ["variant": "\(variant)", "segments": "\(late.joined(separator: ","))"])
        }
        var message = "listed \(listed) new segment\(listed == 1 ? "" : "s")"
        if !recorded.isEmpty { message += "; \(recorded.count) late, recorded in place of their stand-ins (\(recorded.joined(separator: ", ")))" }
        if !late.isEmpty { message += "; \(late.count) late with no slot to take them, kept aside as unplaced (\(late.joined(separator: ", ")))" }
        return .success(IngestReceipt(created: false, message: message))
    }

    /// A pushed segment with no slot to take it (its slot holds a real segment, or has no entry:
    /// the server was down then) is kept, never lost: `<stream>/unplaced/<variant>/<slot>-<name>`,
    /// restamped for its slot, for an operator to recover.
    private func keepUnplaced(_ segment: EncodedSegment, named name: String, of variant: String) {
        let path = layout.unplacedPath(variant, slot: segment.index, name: name)
        let directory = (path as NSString).deletingLastPathComponent
        let kept = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).count { !$0.hasPrefix(".") }
        guard bounds.keepsUnplaced(alreadyKept: kept) else {
            logger.error("a pushed segment with no slot was dropped: unplaced/ holds ingest.max_unplaced_segments already",
                         metadata: ["variant": "\(variant)", "segment": "\(name)", "kept": "\(kept)"])
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try AtomicFile.write(segment.bytes, to: path)
        } catch {
            logger.error("a pushed segment with no slot could not be kept", metadata: ["variant": "\(variant)", "segment": "\(name)", "error": "\(error)"])
        }
    }

    /// The received bytes moved onto the stream's timeline, as the publisher takes them.
    private func restamped(_ bytes: [UInt8], _ listing: IngestLedger.Listing) -> EncodedSegment? {
        guard listing.keyframeEnd <= bytes.count, let moved = try? TransportStreamRestamp.restamp(bytes, by: listing.shift) else { return nil }
        return EncodedSegment(index: listing.slot, duration: listing.duration, startTime: listing.startTime, programDateTime: listing.programDateTime,
                              bytes: moved, keyframeRanges: [0..<listing.keyframeEnd])
    }

    // MARK: Master

    /// The pushed master says what each variant really is (RESOLUTION, CODECS); Sideline renders
    /// the master players get from that and the config's ladder.
    private func receiveMaster(_ body: [UInt8]) -> Result<IngestReceipt, Refusal> {
        let master: MultivariantPlaylist
        switch IngestMaster.parse(body) {
        case let .success(parsed): master = parsed
        case let .failure(refusal): return .failure(refusal)
        }
        let served = plan.stream.video.ladder
        let ladder = served.map(\.name)
        // A stream whose config names no ladder takes its encoder's (kept for the next start).
        let current = served.map { DeclaredRung(name: $0.name, width: $0.width, height: $0.height, bandwidth: $0.maxrate.bitsPerSecond, codecs: [], frameRate: nil) }
        switch IngestMaster.ladder(for: master, configured: plan.stream.video.ladderConfigured ? ladder : nil, kept: current, playlist: StreamLayout.mediaPlaylistName) {
        case let .failure(refusal): return .failure(refusal)
        case .success(.configured), .success(.kept): break
        case let .success(.declared(rungs)): return keepDeclared(rungs)
        }
        for (name, format) in IngestMaster.formats(in: master, ladder: ladder, playlist: StreamLayout.mediaPlaylistName, frameRate: frameRate) {
            publisher.writer.noteFormat(format, of: name)
        }
        switch IngestMaster.accept(master, ladder: ladder, playlist: StreamLayout.mediaPlaylistName) {
        case let .failure(refusal):
            return .failure(refusal)
        case let .success(taken):
            // Rungs the encoder leaves out are filled like a failed variant's until their segments come again.
            for variant in taken.notPushed { publisher.variantNotPushed(variant) }
            return .success(IngestReceipt(created: false, message: taken.receipt))
        }
    }

    /// A ladder the encoder declares in place of the one served: kept (atomically) so the
    /// next start serves it (`PushedLadder.restoring`); this process's publisher was built for
    /// the served rungs, so the master is refused until then, saying so.
    private func keepDeclared(_ rungs: [DeclaredRung]) -> Result<IngestReceipt, Refusal> {
        do {
            try PushedLadder.keep(rungs, layout: layout)
        } catch {
            logger.error("the encoder's ladder could not be kept", metadata: ["error": "\(error)"])
            return .failure(Self.writeRefusal(error, "the encoder's ladder could not be kept"))
        }
        logger.notice("the encoder declares a new ladder: kept, served from the next start", metadata: ["ladder": "\(rungs.map(\.name).joined(separator: ","))"])
        return .failure(.malformed("the master's ladder (\(rungs.map(\.name).joined(separator: ", "))) is kept for this stream, which names none in the config; the server serves it from its next start: restart it, then push again").forOperators())
    }

    // MARK: Metadata

    /// Title, description and keywords: kept (atomically) before the master and `/api/streams`
    /// show them, so a restart shows them too.
    private func receiveMetadata(_ body: [UInt8]) -> Result<IngestReceipt, Refusal> {
        let metadata: StreamMetadata
        switch StreamMetadata.parse(body) {
        case let .success(parsed): metadata = parsed
        case let .failure(rejection): return .failure(.malformed("\(rejection)").forOperators())
        }
        do {
            try AtomicFile.write(Array(try JSONEncoder().encode(metadata)), to: layout.metadataPath)
        } catch {
            logger.error("pushed metadata not kept", metadata: ["error": "\(error)"])
            return .failure(Self.writeRefusal(error, "the metadata could not be kept"))
        }
        apply(metadata)
        return .success(IngestReceipt(created: false, message: "metadata taken: title '\(metadata.title)'"))
    }

    private func apply(_ metadata: StreamMetadata) {
        publisher.registry.setMetadata(stream: name, title: metadata.title, description: metadata.description, keywords: metadata.keywords)
        publisher.writer.setSessionData(MasterAssembly.sessionData(title: metadata.title, description: metadata.description, keywords: metadata.keywords))
    }

    /// 507 when the disk (or the user's quota) is full, logged by the caller; 500 otherwise.
    static func writeRefusal(_ error: any Error, _ what: String) -> Refusal {
        if case .diskFull = error as? StoreError {
            return Refusal(.insufficientStorage, "\(what): the server's disk is full; an operator must free space (retention.max_size_gb)").forOperators()
        }
        return Refusal(.internalError, "\(what): \(error)").forOperators()
    }

    private func refusal(_ rejection: IngestLedger.Rejection, variant: String) -> Refusal {
        switch rejection {
        case .unknownVariant: Refusal(.noSuchVariant, "\(rejection)").forOperators()
        default: Refusal.malformed("\(rejection)").forOperators()
        }
    }
}
