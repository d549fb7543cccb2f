import HLSPlaylist
import Synchronization

/// What became of one segment's upload.
enum SegmentUploadOutcome {
    case uploaded(bytes: Int, seconds: Double)
    case deferred
    case dropped
}

extension PushUploader {
    /// Every rung's segment of `slot` still to send, each followed by its playlist; then what
    /// the upload times say about the link.
    func send(slot: Int) async throws(PushRefusal) {
        let variants = state.withLock { $0.queue.unsent(slot: slot, order: settings.rungs.map(\.name)) }
        var bytes = 0
        var seconds = 0.0
        for variant in variants {
            switch try await uploadSegment(variant, slot: slot) {
            case let .uploaded(size, took):
                bytes += size
                seconds += took
                try await sendPlaylist(of: variant)
            case .deferred:
                // Left for the backlog: whatever the order says goes next.
                return
            case .dropped:
                continue
            }
        }
        if bytes > 0 { adapt(bytes: bytes, seconds: seconds) }
    }

    func uploadSegment(_ variant: String, slot: Int) async throws(PushRefusal) -> SegmentUploadOutcome {
        guard let bytes = await store.queuedBytes(of: variant, slot: slot) else {
            // A store asked from a cancelled task may answer nothing: the file is still there.
            if Task.isCancelled { return .deferred }
            report(.segmentFileGone(variant: variant, slot: slot))
            state.withLock { $0.queue.drop(variant, slot: slot) }
            return .dropped
        }
        switch try await sendUntilSettled(.segment, path: "\(variant)/\(PushQueue.segmentName(slot: slot))", contentType: "video/mp2t", watchesRate: true, body: { bytes }) {
        case let .taken(seconds):
            state.withLock { $0.queue.uploaded(variant, slot: slot) }
            report(.segmentUploaded(variant: variant, slot: slot, seconds: seconds))
            return .uploaded(bytes: bytes.count, seconds: seconds)
        case let .ended(.drop(reason), _):
            report(.segmentDropped(variant: variant, slot: slot, reason: reason))
            state.withLock { $0.queue.drop(variant, slot: slot) }
            await store.removeQueued(variant, slots: [slot])
            return .dropped
        case .ended, .nothingToSend, .outOfTime:
            return .deferred
        }
    }

    /// The playlist that makes what went up visible, retried until it goes through; its
    /// segments then leave the queue.
    func sendPlaylist(of variant: String) async throws(PushRefusal) {
        let resent = state.withLock { $0.resent.contains(variant) }
        var sent: MediaPlaylist?
        let settled = try await sendUntilSettled(.playlist, path: "\(variant)/index.m3u8", contentType: "application/vnd.apple.mpegurl", resent: resent) {
            // Asked again before each attempt: what may be listed grows meanwhile.
            sent = state.withLock { $0.queue.playlist(of: variant, targetDuration: settings.targetDuration) }
            return sent.map { Array($0.render().utf8) }
        }
        switch settled {
        case .taken:
            if let sent { await acknowledge(sent, of: variant) }
        case let .ended(.resendSegments, reason):
            report(.playlistRefused(variant: variant, reason: reason))
            state.withLock { s in
                s.resent.insert(variant)
                s.queue.resend(variant)
            }
        case .ended, .nothingToSend, .outOfTime:
            return
        }
    }

    /// The server listed what `playlist` names: those segments leave the queue (files first,
    /// then the record of how far the variant got).
    func acknowledge(_ playlist: MediaPlaylist, of variant: String) async {
        let (slots, upTo) = state.withLock { s in
            s.resent.remove(variant)
            let slots = s.queue.acknowledged(playlist, of: variant)
            s.acknowledged += slots.count
            return (slots, s.queue.acknowledgedUpTo)
        }
        report(.acknowledged(variant: variant, slots: slots))
        await store.removeQueued(variant, slots: slots)
        do {
            try await store.recordAcknowledged(upTo)
        } catch {
            report(.queueStateNotSaved(error: "\(error)"))
        }
    }

    /// What the upload times say about the link: the encoders' rates and the rungs sent.
    func adapt(bytes: Int, seconds: Double) {
        let measured = seconds > 0 ? Int(Double(bytes) * 8 / seconds) : nil
        let change = state.withLock { s -> PushPlanChange? in
            if let measured { s.uploadBitRate = measured }
            let before = s.follower.plan
            return s.follower.measured(bytes: bytes, seconds: seconds).map { PushPlanChange(plan: $0, measured: measured, before: before) }
        }
        if let change { planChanged(change) }
    }

    func planChanged(_ change: PushPlanChange) {
        report(.planChanged(change))
        // The master may have to change.
        wake()
    }

    /// Sends the master when the rungs sent changed (and every one's format is known): the
    /// server fills a rung the master leaves out until it is listed again.
    func sendMasterIfChanged() async throws(PushRefusal) {
        let (sent, formats, current) = state.withLock { ($0.follower.plan.sent.map(\.name), $0.formats, $0.masterSent) }
        guard sent != current, let text = PushMaster.render(sent: sent, formats: formats, peakBitRates: settings.peakBitRates) else { return }
        if case .taken = try await sendUntilSettled(.document, path: "master.m3u8", contentType: "application/vnd.apple.mpegurl", body: { Array(text.utf8) }) {
            state.withLock { $0.masterSent = sent }
        }
    }
}
