import SidelineCore
import SidelineTesting
import StreamPushing
import Testing

@Suite struct UploadBitRateTests {
    let rule = UploadBitRate(ratio: 0.7, minimum: 100_000, maximum: 3_000_000)

    /// The field app's rule: a 2 s segment at 1 Mbit/s (250,000 bytes) that took 1 s to send
    /// measured 2 Mbit/s of link: the next get 0.7 of it.
    @Test func theNextBitRateIsSevenTenthsOfWhatTheLinkCarried() {
        #expect(rule.next(afterUploading: 250_000, in: 1) == 1_400_000)
        // The app's own formula gives the same when the segment is exactly its bit rate.
        let last = 1_000_000.0, duration = 2.0, upload = 1.0
        #expect(Double(rule.next(afterUploading: Int(last * duration / 8), in: upload)) == last * duration / upload * 0.7)
    }

    @Test func itStaysWithinTheConfiguredBounds() {
        #expect(rule.next(afterUploading: 250_000, in: 30) == 100_000, "a link that nearly stopped: the minimum, not zero")
        #expect(rule.next(afterUploading: 25_000_000, in: 1) == 3_000_000, "a fast link: the maximum")
        #expect(rule.next(afterUploading: 250_000, in: 0) == 3_000_000, "too fast to time")
    }
}

@Suite struct UploadRetryTests {
    func decide(_ upload: UploadRetry.Upload, _ status: Int?, first: Double = 100, now: Double, backoff: inout Backoff) -> UploadRetry.Decision {
        UploadRetry.decide(upload, status: status, reason: "why", firstAttempt: first, now: now, segmentDuration: 2, backoff: &backoff)
    }

    /// DASH-IF live media ingest: a segment is retried for about one segment duration, then
    /// left for the backlog; the waits are the one Backoff's.
    @Test func aSegmentIsRetriedForOneSegmentDurationThenDeferred() {
        let clock = ManualClock(100)
        var backoff = Backoff.uploadRetry
        var waits: [Double] = []
        while case let .retry(after) = decide(.segment, nil, now: clock.now, backoff: &backoff) {
            waits.append(after)
            clock.advance(by: after)
        }
        #expect(waits == [0.2, 0.4, 0.8, 1.6])
        #expect(decide(.segment, 503, now: clock.now, backoff: &backoff) == .deferToBacklog)
    }

    @Test func aPlaylistIsRetriedUntilItGoesThrough() {
        var backoff = Backoff.uploadRetry
        for minutes in 0..<10 {
            guard case .retry = decide(.playlist, 503, now: 100 + Double(minutes) * 60, backoff: &backoff) else {
                Issue.record("a playlist is never given up")
                return
            }
        }
        #expect(backoff.nextDelay == 2, "at most 2 s apart")
    }

    @Test func refusalsRetryingCannotFixAreNotRetried() {
        var backoff = Backoff.uploadRetry
        guard case .stop = decide(.segment, 401, now: 100, backoff: &backoff), case .stop = decide(.playlist, 403, now: 100, backoff: &backoff),
              case .stop = decide(.playlist, 400, now: 100, backoff: &backoff), case .drop = decide(.segment, 400, now: 100, backoff: &backoff) else {
            Issue.record("401 and 403 stop push; 400 drops a segment and stops on a playlist")
            return
        }
        #expect(backoff.failures == 0, "nothing was waited for")
    }
}

@Suite struct PushQueueOrderTests {
    @Test func catchUpSendsOldestFirst() {
        #expect(PushQueueOrder.next(queued: [12, 10, 11], newest: 12, backlog: .catchUp) == 10)
        #expect(PushQueueOrder.next(queued: [], newest: 12, backlog: .catchUp) == nil)
    }

    @Test func liveFirstSendsTheLiveEdgeThenTheBacklogOldestFirst() {
        #expect(PushQueueOrder.next(queued: [10, 11, 12], newest: 12, backlog: .liveFirst) == 12)
        #expect(PushQueueOrder.next(queued: [10, 11], newest: 12, backlog: .liveFirst) == 10, "the edge is through: the backlog, oldest first")
        #expect(PushQueueOrder.next(queued: [10, 11, 13], newest: 13, backlog: .liveFirst) == 13, "a newer edge goes before the backlog again")
        #expect(PushQueueOrder.Backlog(rawValue: "live-first") == .liveFirst && PushQueueOrder.Backlog(rawValue: "catch-up") == .catchUp)
    }
}
