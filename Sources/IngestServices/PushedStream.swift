import Foundation
import HLSPlaylist
import IngestPolicy
import Logging
import MediaPipeline
import MPEGTS
import OriginPolicy
import OriginRegistry
import OriginState
import SegmentStore
import SidelineConfig
import SidelineCore
import StreamPushing
import StreamPublishing
import StreamServices
import Synchronization

/// One stream a remote encoder pushes (`ingest_token` in the config, no `input`): carries out
/// what its core (`PushedStreamCore`, pure) decides for each upload. A segment upload is
/// checked (`PushedSegmentCheck`), kept under its pushed name among the received ones
/// (atomically), and noted; a media playlist upload makes the received segments it lists
/// ready, and each goes, restamped onto the stream's timeline, to the stream's
/// `StreamPublisher`, the same core a camera's pipeline feeds: stand-ins when the pusher goes
/// quiet, EVENT playlists, markers, VOD, clips and mirrors all follow from there.
///
/// A stream whose config names no ladder takes the one its encoder's first master declares,
/// live: the master is answered once the ladder is kept, and the publisher, recorder, stand-ins
/// and core are built anew for its rungs off the request (`settleLadder`), once, before the
/// encoder's next upload is taken.
public final class PushedStream: Sendable {
    /// The plan and publisher in force: replaced once when the stream takes its encoder's ladder.
    let current: Mutex<Current>
    let layout: StreamLayout
    /// Every file the stream keeps beside its recording (received segments, session, ladder, metadata, unplaced).
    let files: PushedStreamFiles
    /// What the stream decides of each upload: its ledger, codecs and bounds.
    let core: Mutex<PushedStreamCore>
    let logger: Logger
    /// Whether a publisher built anew for a taken ladder has stand-ins (as the first was built).
    let withStandIns: Bool
    /// Uploads of this stream, segments and playlists, are carried out one at a time, in the
    /// order they arrive: a playlist must see every segment whose upload finished before it.
    let uploads = Mutex(())
    let totals = Mutex(PipelineStatistics())
    /// A ladder kept and not yet set up, with what its master said of each rung; set up by a
    /// thread of its own after the master is answered, or by the next upload, whichever takes
    /// `uploads` first.
    let pendingLadder = Mutex<PendingLadder?>(nil)
    /// Why the ladder kept could not be set up: every upload is answered with it until a restart.
    let setupFailure = Mutex<Refusal?>(nil)
    /// A declared ladder was taken by this process: another is a conflict until a restart.
    let tookLadder = Atomic<Bool>(false)

    struct PendingLadder {
        var rungs: [DeclaredRung]
        var formats: [PushedStreamCore.NotedFormat]
        var notPushed: [String]
    }
    /// What this stream may make the server keep (`ingest` in the config).
    public let bounds: IngestBounds

    struct Current {
        var plan: ServePlan
        var publisher: StreamPublisher
        /// Whether the service ticks the publisher (a new one is ticked too).
        var ticking = false
        /// Ended or removed: no ladder is taken any more.
        var stopped = false
    }

    /// `publisher`: the plan's, built with stand-ins or not (`withStandIns`, as a ladder taken
    /// later builds its own).
    public init(plan: ServePlan, publisher: StreamPublisher, withStandIns: Bool = true, logger: Logger) {
        self.current = Mutex(Current(plan: plan, publisher: publisher))
        self.layout = plan.layout
        self.files = PushedStreamFiles(layout: plan.layout)
        self.logger = logger
        self.withStandIns = withStandIns
        let bounds = IngestBounds(plan.configuration.ingest)
        self.bounds = bounds
        self.core = Mutex(PushedStreamCore.starting(plan: plan, publisher: publisher, bounds: bounds, logger: logger))
        applyKeptMetadata()
    }

    /// The stream as a start builds it: its publisher (registered in `registry`) and its core.
    public convenience init(plan: ServePlan, registry: StreamRegistry, withStandIns: Bool = true, logger: Logger) throws {
        self.init(plan: plan, publisher: try plan.makePublisher(registry: registry, withStandIns: withStandIns, logger: logger), withStandIns: withStandIns, logger: logger)
    }

    /// What the pusher last said about the stream wins over the config, across restarts.
    func applyKeptMetadata() {
        if let metadata = files.load(StreamMetadata.self, from: .metadata) { apply(metadata) }
    }

    public var plan: ServePlan { current.withLock { $0.plan } }
    public var publisher: StreamPublisher { current.withLock { $0.publisher } }
    public var name: String { layout.stream }
    /// What was listed so far (the ladder's first variant), for the status line.
    public var statistics: PipelineStatistics { totals.withLock { $0 } }
    public var token: String { plan.stream.ingestToken }

    func receive(_ path: IngestPath, body: [UInt8]) -> Result<IngestReceipt, Refusal> {
        uploads.withLock { _ in
            if let refusal = settleLadder() { return .failure(refusal) }
            return switch path {
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
        // A stranger of a variant is refused before its bytes are read.
        if let rejection = core.withLock({ $0.ledger.check(variant: variant) }) { return .failure(core.withLock { $0.refusal(rejection) }) }
        let inspection: PushedSegmentCheck.Inspection
        switch PushedSegmentCheck.inspect(bytes) {
        case let .success(found): inspection = found
        case let .failure(failure): return .failure(.malformed("segment '\(name)' of variant '\(variant)': \(failure)").forOperators())
        }
        let stamp: Int64
        switch core.withLock({ $0.segmentUploaded(variant: variant, name: name, inspection: inspection) }) {
        case let .keepSegment(_, _, stampedBy): stamp = stampedBy
        case let .refuse(refusal):
            if refusal.kind == .overloaded { logger.warning("pushed segment refused: too many received and not listed", metadata: ["variant": "\(variant)", "segment": "\(name)"]) }
            return .failure(refusal)
        default: return PushedStreamCore.receipt(nil)
        }
        do {
            // The program tables first, in the order Sideline serves them, and the open session's
            // timestamps: the file the recording links when it is listed in that session.
            // Written atomically: a full disk leaves the name as it was, never a torn file.
            let ordered = TransportStreamHeaders.patFirst(bytes)
            // Where it then starts, and where the file it replaces starts: a restart tells them apart.
            var stamps = [ReceivedStamp(stamp: stamp, firstPTS: TransportStreamRestamp.shifted(inspection.firstPTS, by: stamp))]
            if let replaced = core.withLock({ $0.ledger.received(name, of: variant) }) {
                stamps.append(ReceivedStamp(stamp: replaced.stamped, firstPTS: TransportStreamRestamp.shifted(replaced.firstPTS, by: replaced.stamped)))
            }
            try files.keepReceived(stamp == 0 ? ordered : TransportStreamRestamp.restamp(ordered, by: stamp), variant: variant, name: name, stamps: stamps)
        } catch {
            logger.error("pushed segment not kept", metadata: ["variant": "\(variant)", "segment": "\(name)", "error": "\(error)"])
            return .failure(Self.writeRefusal(error, "segment '\(name)' could not be kept"))
        }
        let kept = core.withLock { $0.segmentKept(variant: variant, name: name, inspection: inspection, stampedBy: stamp) }
        if case .refuse = kept { files.removeReceived(variant: variant, name: name) }
        return PushedStreamCore.receipt(kept)
    }

    // MARK: Playlists

    private func receivePlaylist(_ body: [UInt8], of variant: String) -> Result<IngestReceipt, Refusal> {
        let (plan, publisher) = current.withLock { ($0.plan, $0.publisher) }
        let actions = core.withLock { $0.playlistUploaded(variant: variant, body: body, now: Date(), beginningSessionsOn: publisher) }
        for action in actions {
            switch action {
            case let .keepSession(persisted):
                // Kept before anything is listed, so a restart maps the encoder's numbers as this process did.
                do {
                    try files.keep(persisted, as: .session)
                } catch {
                    logger.error("the ingest session could not be kept; after a restart the encoder's segments start a new session", metadata: ["error": "\(error)"])
                }
            case let .publish(variant, listings):
                return PushedStreamCore.receipt(publish(listings, of: variant, plan: plan, publisher: publisher))
            default:
                return PushedStreamCore.receipt(action)
            }
        }
        return PushedStreamCore.receipt(nil)
    }

    /// Each listing published, in order: its received file linked into the recording as it is
    /// when it was kept stamped for this session, else read back and restamped; the answer that
    /// says what became of them.
    private func publish(_ listings: [IngestLedger.Listing], of variant: String, plan: ServePlan, publisher: StreamPublisher) -> PushedStreamCore.Action {
        var listed = 0
        var recorded: [String] = []
        var late: [String] = []
        for listing in listings {
            defer { files.removeReceived(variant: variant, name: listing.name) }
            guard let data = files.received(variant: variant, name: listing.name),
                  let segment = restamped(data, listing, file: files.receivedPath(variant: variant, name: listing.name)) else {
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
        return PushedStreamCore.publishReceipt(listed: listed, recorded: recorded, late: late)
    }

    /// A pushed segment with no slot to take it (its slot holds a real segment, or has no entry:
    /// the server was down then) is kept, never lost: `<stream>/unplaced/<variant>/<slot>-<name>`,
    /// restamped for its slot, for an operator to recover.
    private func keepUnplaced(_ segment: EncodedSegment, named name: String, of variant: String) {
        let kept = files.unplacedCount(variant: variant)
        guard bounds.keepsUnplaced(alreadyKept: kept) else {
            logger.error("a pushed segment with no slot was dropped: unplaced/ holds ingest.max_unplaced_segments already",
                         metadata: ["variant": "\(variant)", "segment": "\(name)", "kept": "\(kept)"])
            return
        }
        do {
            try files.keepUnplaced(segment.bytes, variant: variant, slot: segment.index, name: name)
        } catch {
            logger.error("a pushed segment with no slot could not be kept", metadata: ["variant": "\(variant)", "segment": "\(name)", "error": "\(error)"])
        }
    }

    /// The received bytes on the stream's timeline, as the publisher takes them: as kept (and
    /// `file`, which holds them, linked by the recording) when they were stamped for this
    /// session, else moved by what is left of the shift.
    private func restamped(_ bytes: [UInt8], _ listing: IngestLedger.Listing, file: String) -> EncodedSegment? {
        guard listing.keyframeEnd <= bytes.count else { return nil }
        let asKept = listing.restamp == 0
        guard let moved = asKept ? bytes : try? TransportStreamRestamp.restamp(bytes, by: listing.restamp) else { return nil }
        return EncodedSegment(index: listing.slot, duration: listing.duration, startTime: listing.startTime, programDateTime: listing.programDateTime,
                              bytes: moved, keyframeRanges: [0..<listing.keyframeEnd], file: asKept ? file : nil)
    }

    // MARK: Service

    /// Fills the slots on time from now on, the publisher of a ladder taken later too.
    func startTicking() {
        current.withLock { current in
            current.ticking = true
            current.publisher.startTicking()
        }
    }

    func stopTicking() {
        current.withLock { current in
            current.ticking = false
            current.publisher.stopTicking()
        }
    }

    /// Ends the stream (EXT-X-ENDLIST); no ladder is taken after it.
    func endStream() {
        let publisher = current.withLock { current in
            current.stopped = true
            return current.publisher
        }
        publisher.endStream()
    }

    /// Stops listing before the stream's recording is removed.
    func retire() {
        let publisher = current.withLock { current in
            current.stopped = true
            return current.publisher
        }
        publisher.retire()
    }
}
