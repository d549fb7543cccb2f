import SidelineCore
import Synchronization

/// How one upload's attempts ended.
enum UploadSettled {
    /// The server took it; the attempt that went through took this long.
    case taken(seconds: Double)
    /// `UploadRetry` ended the attempts (a segment deferred or dropped, a playlist's
    /// segments to send again), with the server's last reason.
    case ended(UploadRetry.Decision, reason: String)
    /// Nothing is left to send (a playlist with no segment uploaded).
    case nothingToSend
    /// The drain deadline passed, or the task was cancelled.
    case outOfTime
}

extension PushUploader {
    /// The one retry loop of push: PUTs what `body` gives (asked before each attempt; nil:
    /// nothing to send any more) until the server takes it, `UploadRetry` ends the attempts, or
    /// the drain deadline passes. A refusal retrying cannot fix throws. Waits come from
    /// `Backoff.uploadRetry`, on the injected sleep.
    func sendUntilSettled(_ upload: UploadRetry.Upload, path: String, contentType: String, watchesRate: Bool = false, resent: Bool = false,
                          body: () -> [UInt8]?) async throws(PushRefusal) -> UploadSettled {
        var backoff = Backoff.uploadRetry
        let first = clock()
        while true {
            guard let bytes = body() else { return .nothingToSend }
            let (answer, seconds) = await watchedUpload(path, body: bytes, contentType: contentType, watchesRate: watchesRate)
            if answer.succeeded {
                noteRecovered()
                return .taken(seconds: seconds)
            }
            noteFailure(upload == .segment ? "segment \(path)" : upload == .playlist ? "playlist \(path)" : path, answer)
            let decision = UploadRetry.decide(upload, status: answer.status, reason: answer.reason, firstAttempt: first, now: clock(),
                                              segmentDuration: settings.segmentDuration, resent: resent, backoff: &backoff)
            let wait: Double
            switch decision {
            case let .stop(message):
                throw PushRefusal(description: message)
            case let .retry(after):
                wait = after
            case .deferToBacklog, .drop, .resendSegments:
                if Self.ends(upload, decision) { return .ended(decision, reason: answer.reason) }
                // Nothing else can be done about a playlist or a document: it is retried.
                wait = backoff.failed(at: clock())
            }
            // Nothing more is tried once the drain deadline has passed, also after a wait.
            if pastDeadline { return .outOfTime }
            do { try await sleep(wait) } catch { return .outOfTime }
            if pastDeadline { return .outOfTime }
        }
    }

    /// Whether `decision` ends the attempts at `upload`: a segment deferred or dropped, a
    /// playlist whose segments go up again. The rest is retried.
    static func ends(_ upload: UploadRetry.Upload, _ decision: UploadRetry.Decision) -> Bool {
        switch (upload, decision) {
        case (.segment, .deferToBacklog), (.segment, .drop), (.playlist, .resendSegments): true
        default: false
        }
    }

    /// One upload, watched on the injected clock (`watch`). Returns the answer (the server's,
    /// or the watchdog's when it gave the upload up) and how long the attempt took.
    func watchedUpload(_ path: String, body: [UInt8], contentType: String, watchesRate: Bool) async -> (IngestAnswer, Double) {
        let started = clock()
        let limit = settings.uploadLimit
        let transport = self.transport
        let answer = await withTaskGroup(of: IngestAnswer?.self) { group -> IngestAnswer in
            group.addTask { await transport.put(path, body: body, contentType: contentType, timeout: limit) }
            group.addTask { [self] in await watch(bytes: watchesRate ? body.count : nil, started: started) }
            // The first to finish decides: the upload's answer, or the watchdog giving it up.
            var answer = IngestAnswer(status: nil, reason: "cancelled")
            if let first = await group.next(), let first { answer = first }
            group.cancelAll()
            return answer
        }
        return (answer, clock() - started)
    }

    /// The upload watchdog. It sleeps until the next moment something is due, never polls:
    /// - a segment of `bytes` still going after `PushRateFollower.stepDownAfter` says the link
    ///   carries less than the plan: the plan steps down now (`stillUploading`), and again at
    ///   most every `stepInterval` while the bound keeps falling;
    /// - any upload still going after `uploadLimit` is given up (a stalled connection).
    /// nil when cancelled: the upload ended first.
    private func watch(bytes: Int?, started: Double) async -> IngestAnswer? {
        let limit = settings.uploadLimit
        var lastCheck: Double?
        while true {
            var due = limit
            if let bytes, let after = state.withLock({ $0.follower.stepDownAfter(bytes: bytes) }) {
                due = min(limit, max(after, lastCheck.map { $0 + PushRateFollower.stepInterval } ?? after))
            }
            do { try await sleep(max(0, due - (clock() - started))) } catch { return nil }
            let elapsed = clock() - started
            if elapsed >= limit {
                return IngestAnswer(status: nil, reason: "no answer within \(Int(limit.rounded(.up))) s: given up")
            }
            guard let bytes else { continue }
            lastCheck = elapsed
            if let plan = state.withLock({ $0.follower.stillUploading(bytes: bytes, seconds: elapsed) }) {
                planChanged(PushPlanChange(plan: plan, measured: nil, before: nil))
            }
        }
    }

    /// The first failure after a success is reported; the rest show on the status line.
    private func noteFailure(_ what: String, _ answer: IngestAnswer) {
        let first = state.withLock { s in
            defer { s.lastFailure = "\(what): \(answer.status.map(String.init) ?? "no answer") \(answer.reason.prefix(160))" }
            return s.lastFailure == nil
        }
        if first { report(.uploadFailing(upload: what, status: answer.status, reason: String(answer.reason.prefix(300)))) }
    }

    private func noteRecovered() {
        let was = state.withLock { s in
            defer { s.lastFailure = nil }
            return s.lastFailure
        }
        if was != nil { report(.uploadsRecovered) }
    }
}
