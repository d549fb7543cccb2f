import Foundation
import HLSPlaylist
import IngestPolicy
import Logging
import OriginPolicy
import SegmentStore
import SidelineConfig
import SidelineCore
import StreamPushing
import StreamServices
import Synchronization

/// A pushed stream's master, and the ladder its encoder declares: answered once the ladder is
/// kept, set up off the request before the next upload is taken (`settleLadder`).
extension PushedStream {
    // MARK: Master

    /// The pushed master says what each variant really is (RESOLUTION, CODECS); Sideline renders
    /// the master players get from that and the ladder.
    func receiveMaster(_ body: [UInt8]) -> Result<IngestReceipt, Refusal> {
        let master: MultivariantPlaylist
        switch IngestMaster.parse(body) {
        case let .success(parsed): master = parsed
        case let .failure(refusal): return .failure(refusal)
        }
        let publisher = self.publisher
        let facts = PushedStreamCore.Facts(recordingHoldsFootage: recordingHoldsFootage(publisher), tookDeclaredLadder: tookLadder.load(ordering: .relaxed))
        let actions = core.withLock { $0.masterUploaded(master, facts: facts) }
        for action in actions {
            switch action {
            case let .noteFormats(formats):
                for noted in formats { publisher.writer.noteFormat(noted.format, of: noted.variant) }
            case let .notPushed(variants):
                // Rungs the encoder leaves out are filled like a failed variant's until their segments come again.
                for variant in variants { publisher.variantNotPushed(variant) }
            case let .takeLadder(rungs, formats, notPushed):
                if let refusal = keepLadder(rungs) { return .failure(refusal) }
                tookLadder.store(true, ordering: .relaxed)
                pendingLadder.withLock { $0 = PendingLadder(rungs: rungs, formats: formats, notPushed: notPushed) }
                // Set up off the request: the answer says it is taken; the next upload waits for it.
                Thread.detachNewThread { [self] in uploads.withLock { _ in _ = settleLadder() } }
            default:
                return PushedStreamCore.receipt(action)
            }
        }
        return PushedStreamCore.receipt(nil)
    }

    /// Whether the recording holds an entry that is no fill (a camera recorded it before the
    /// stream was pushed, or a late segment replaced a fill). Before that, every entry is a GAP
    /// or a stand-in, and a new ladder orphans nothing. (An encoder's session is the core's to see.)
    private func recordingHoldsFootage(_ publisher: StreamPublisher) -> Bool {
        publisher.writer.recorder.variants.values.contains { variant in
            let playlist = variant.playlist
            return playlist.replaceableEntries.count < playlist.segments.count
        }
    }

    /// Keeps the ladder the encoder declares in place of the one served, before its first
    /// segment (`IngestMaster.takesDeclared`), atomically, so a crash from here on still
    /// serves it at the next start (`PushedLadder.restoring`). Nil when kept.
    private func keepLadder(_ rungs: [DeclaredRung]) -> Refusal? {
        do {
            try files.keep(rungs, as: .ladder)
        } catch {
            logger.error("the encoder's ladder could not be kept", metadata: ["error": "\(error)"])
            return Self.writeRefusal(error, "the encoder's ladder could not be kept")
        }
        if current.withLock({ $0.stopped }) { return Refusal(.conflict, "the stream has ended; its encoder's ladder is kept and served from the next start").forOperators() }
        return nil
    }

    /// Waits until a ladder taken from a master is set up (what the next upload waits for
    /// before it is taken); nil when it is, or none was pending, else why it could not be.
    public func settleTakenLadder() -> Refusal? {
        uploads.withLock { _ in settleLadder() }
    }

    /// Sets up the ladder kept and pending, if any; called with `uploads` held. Nil when there
    /// is none or it is set up; the refusal every upload gets when it could not be.
    func settleLadder() -> Refusal? {
        if let failure = setupFailure.withLock({ $0 }) { return failure }
        guard let pending = pendingLadder.withLock({ pending in defer { pending = nil }; return pending }) else { return nil }
        if let failure = takeLadder(pending.rungs) {
            setupFailure.withLock { $0 = failure }
            return failure
        }
        let publisher = self.publisher
        for noted in pending.formats { publisher.writer.noteFormat(noted.format, of: noted.variant) }
        for variant in pending.notPushed { publisher.variantNotPushed(variant) }
        return nil
    }

    /// Takes the ladder kept (`keepLadder`): the served publisher is retired and one is built
    /// for the new rungs as a start would (registry entry, recorder per variant, stand-ins per
    /// rung, master), with a new core. What the old ladder had recorded is fills only
    /// (`recordingHoldsFootage`, and no session began), and is removed with its master and timeline, so every new rung starts
    /// level (an angle of a set lists its slots anew, entry n = slot n). Its work is bounded by
    /// the ladder's (`DeclaredRung.maxPixelRate`), done once per stream. Nil when taken.
    private func takeLadder(_ rungs: [DeclaredRung]) -> Refusal? {
        let old = current.withLock { $0 }
        guard !old.stopped else { return nil }
        // The stream as the config names it: `ServePlan` takes the ladder just kept.
        let configured = old.plan.configuration.streams.first { $0.name == name } ?? old.plan.stream
        let plan = ServePlan(configuration: old.plan.configuration, stream: configured, realtime: old.plan.realtime, effort: old.plan.effort)
        old.publisher.retire()
        files.removeRecording(of: old.plan.stream.video.ladder.map(\.name))
        let publisher: StreamPublisher
        do {
            publisher = try plan.makePublisher(registry: old.publisher.registry, withStandIns: withStandIns, logger: logger)
        } catch {
            logger.error("the encoder's ladder is kept but could not be set up; restart the server to serve it", metadata: ["error": "\(error)"])
            return Refusal(.internalError, "the encoder's ladder is kept but could not be set up (\(error)); restart the server, then push again").forOperators()
        }
        core.withLock { $0 = PushedStreamCore.starting(plan: plan, publisher: publisher, bounds: bounds, logger: logger) }
        current.withLock { current in
            current.plan = plan
            current.publisher = publisher
            if current.ticking { publisher.startTicking() }
            if current.stopped { publisher.retire() }
        }
        applyKeptMetadata()
        logger.notice("the encoder's ladder is taken for this stream, which names none in the config", metadata: ["ladder": "\(rungs.map(\.name).joined(separator: ","))"])
        return nil
    }
}
