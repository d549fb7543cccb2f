import Foundation
import IngestPolicy
import Logging
import MediaPipeline
import MPEGTS
import OriginPolicy
import SegmentStore
import SidelineConfig
import SidelineCore
import StreamPublishing
import StreamPushing
import StreamServices

/// How a pushed stream's core starts, from its plan and what its files kept across a restart,
/// and the answer an upload gets from the core's last action.
extension PushedStreamCore {
    /// A pushed stream's core for `plan`'s ladder over `publisher`'s timeline: the encoder's session
    /// from before a restart, so its numbers keep their slots, the segments it had received,
    /// and the codecs a ladder taken before declared.
    static func starting(plan: ServePlan, publisher: StreamPublisher, bounds: IngestBounds, logger: Logger) -> PushedStreamCore {
        let clock = publisher.writer.clock
        let ledgerSettings = IngestLedger.Settings(variants: plan.stream.video.ladder.map(\.name), segmentDuration: plan.configuration.segmentDuration,
                                                   slotStart: { clock.startTime(ofSegment: $0) }, timestampOrigin: publisher.writer.timestampOrigin,
                                                   setEpoch: publisher.setTimeline?.epoch)
        let files = PushedStreamFiles(layout: plan.layout)
        var ledger = IngestLedger(settings: ledgerSettings, restoring: files.load(IngestLedger.Persisted.self, from: .session))
        restoreReceived(into: &ledger, files: files, logger: logger)
        let video = plan.stream.video
        // The ladder served, as rungs: a master that lists only these keeps it.
        let served = video.ladder.map { DeclaredRung(name: $0.name, width: $0.width, height: $0.height, bandwidth: $0.maxrate.bitsPerSecond, codecs: [], frameRate: nil) }
        let settings = PushedStreamCore.Settings(ledger: ledgerSettings, bounds: bounds, ladderConfigured: video.ladderConfigured, served: served,
                                                 frameRate: video.frameRate, streamDirectory: plan.layout.streamDirectory, playlistName: StreamLayout.mediaPlaylistName)
        return PushedStreamCore(settings: settings, ledger: ledger, declaredLadder: video.ladderConfigured ? nil : PushedLadder.load(files))
    }

    /// Segments received before a restart and not listed yet are received still: their encoder
    /// was told so (201), and its next playlist will list them.
    private static func restoreReceived(into ledger: inout IngestLedger, files: PushedStreamFiles, logger: Logger) {
        for variant in ledger.settings.variants {
            for name in files.receivedNames(variant: variant) {
                // Kept restamped: its timestamps as pushed are what the ledger compares. One whose
                // shift cannot be told (a sidecar that names another file) is not listed.
                guard let data = files.received(variant: variant, name: name),
                      case let .success(inspection) = PushedSegmentCheck.inspect(data),
                      let stamp = files.receivedStamps(variant: variant, name: name).flatMap({ ReceivedStamp.stamp(ofFileStartingAt: inspection.firstPTS, kept: $0) }),
                      case .success = ledger.segmentReceived(variant: variant, name: name, inspection: inspection.unstamped(by: stamp), stamped: stamp) else {
                    logger.warning("a received segment kept before the restart cannot be taken; removed", metadata: ["variant": "\(variant)", "segment": "\(name)"])
                    files.removeReceived(variant: variant, name: name)
                    continue
                }
            }
        }
        let count = ledger.settings.variants.reduce(0) { $0 + ledger.pending($1).count }
        if count > 0 { logger.notice("pushed segments received before the restart wait for their playlist", metadata: ["segments": "\(count)"]) }
    }

    /// The upload's answer, from the core's last action.
    /// `playlistUploaded`, with a push session begun on `publisher` when the playlist begins one
    /// (the slot its first segment takes), and the playlist decided again with that slot.
    /// Called under the core's lock, so both steps see the same state.
    mutating func playlistUploaded(variant: String, body: [UInt8], now: Date, beginningSessionsOn publisher: StreamPublisher) -> [Action] {
        let actions = playlistUploaded(variant: variant, body: body, now: now)
        guard actions == [.beginSession] else { return actions }
        return playlistUploaded(variant: variant, body: body, now: now, sessionSlot: publisher.beginPushSession())
    }

    static func receipt(_ action: Action?) -> Result<IngestReceipt, Refusal> {
        switch action {
        case let .answer(created, message): .success(IngestReceipt(created: created, message: message))
        case let .refuse(refusal): .failure(refusal)
        default: .failure(Refusal(.internalError, "the upload was taken but not answered").forOperators())
        }
    }
}

extension IngestBounds {
    /// The `ingest` section's bounds.
    init(_ ingest: IngestSettings) {
        self.init(maxUploadsInFlight: ingest.maxUploadsInFlight, maxBufferedBytes: ingest.maxBufferedMegabytes << 20,
                  maxPendingSegments: ingest.maxPendingSegments, maxUnplacedSegments: ingest.maxUnplacedSegments)
    }
}
