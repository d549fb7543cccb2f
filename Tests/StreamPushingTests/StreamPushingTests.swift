import Foundation
import SidelineCore
import SidelineTesting
import StreamPushing
import Testing

@Suite struct UploadBitRateTests {
    let rule = UploadBitRate(ratio: 0.7)

    /// The field app's rule: a 2 s segment at 1 Mbit/s (250,000 bytes) that took 1 s to send
    /// measured 2 Mbit/s of link: the next get 0.7 of it.
    @Test func theNextBitRateIsSevenTenthsOfWhatTheLinkCarried() {
        #expect(rule.next(afterUploading: 250_000, in: 1) == 1_400_000)
        // The app's own formula gives the same when the segment is exactly its bit rate.
        let last = 1_000_000.0, duration = 2.0, upload = 1.0
        #expect(rule.next(afterUploading: Int(last * duration / 8), in: upload).map(Double.init) == last * duration / upload * 0.7)
        #expect(rule.next(afterUploading: 250_000, in: 0) == nil, "too fast to time: the link is not what limits")
    }
}

/// Which rungs `push` sends at which rate for what the link carries: scaled together while
/// each keeps half its rate, then the lowest dropped first; the best never dropped.
@Suite struct PushLadderTests {
    let ladder = PushLadder(rungs: [.init(name: "720p", bitRate: 3_000_000), .init(name: "360p", bitRate: 800_000), .init(name: "180p", bitRate: 200_000)],
                            audioBitRate: 128_000, minimum: 100_000, maximum: 10_000_000)

    func rates(_ plan: PushLadder.Plan) -> [String: Int] { Dictionary(uniqueKeysWithValues: plan.sent.map { ($0.name, $0.bitRate) }) }

    @Test func aLinkThatCarriesTheLadderGetsItAsConfigured() {
        #expect(rates(ladder.plan(link: 20_000_000)) == ["720p": 3_000_000, "360p": 800_000, "180p": 200_000], "never above the configured rates")
        #expect(ladder.plan(link: nil) == ladder.full)
        #expect(ladder.full.videoBitRate == 4_000_000)
    }

    @Test func aSlowerLinkScalesTheRungsTogether() {
        // 3 Mbit/s: 3 x 128k of audio leaves 2.616 Mbit/s of video, 0.654 of the ladder.
        let plan = ladder.plan(link: 3_000_000)
        #expect(plan.dropped.isEmpty)
        #expect(rates(plan) == ["720p": 1_962_000, "360p": 523_200, "180p": 130_800])
        #expect(plan.videoBitRate + 3 * 128_000 <= 3_000_000)
    }

    @Test func belowHalfTheLowestRungIsDroppedThenTheNext() {
        // 2.3 Mbit/s: three rungs would get 0.479 of their rates; two get 0.538 of theirs.
        let two = ladder.plan(link: 2_300_000)
        #expect(two.dropped == ["180p"])
        #expect(two.sent.map(\.name) == ["720p", "360p"])
        #expect(two.videoBitRate + 2 * 128_000 <= 2_300_000)
        // 2 Mbit/s: two would get 0.459: the best rung alone, with all the link less its audio.
        #expect(rates(ladder.plan(link: 2_000_000)) == ["720p": 1_872_000])
        // 1 Mbit/s: only the best rung, with what the audio leaves.
        let one = ladder.plan(link: 1_000_000)
        #expect(one.dropped == ["360p", "180p"])
        #expect(rates(one) == ["720p": 872_000])
        // A link that nearly stopped: the best rung at the minimum, never dropped.
        #expect(rates(ladder.plan(link: 50_000)) == ["720p": 100_000])
    }

    @Test func theMaximumBoundsTheVideoOfAllRungs() {
        let capped = PushLadder(rungs: ladder.rungs, audioBitRate: 128_000, minimum: 100_000, maximum: 2_000_000)
        #expect(capped.full.videoBitRate <= 2_000_000)
        #expect(capped.full.dropped == [], "2 Mbit/s is half of the 4 Mbit/s ladder: all three stay")
    }
}

/// From one measurement of the uplink to the next: rates follow at once, a dropped rung
/// comes back only after two measurements in a row would keep it.
@Suite struct PushRateFollowerTests {
    let ladder = PushLadder(rungs: [.init(name: "720p", bitRate: 3_000_000), .init(name: "360p", bitRate: 800_000), .init(name: "180p", bitRate: 200_000)],
                            audioBitRate: 128_000, minimum: 100_000, maximum: 10_000_000)

    /// One 2 s slot of every rung sent, `linkBitsPerSecond` measured (ratio 1 to keep the sums plain).
    mutating func measure(_ follower: inout PushRateFollower, link: Int) -> PushLadder.Plan? {
        follower.measured(bytes: link / 8, seconds: 1)
    }

    @Test mutating func aStepDownShowsAtOnceAndAStepUpBringsRungsBackAfterTwoMeasurements() throws {
        var follower = PushRateFollower(ladder: ladder, rule: UploadBitRate(ratio: 1))
        #expect(follower.plan == ladder.full)
        #expect(measure(&follower, link: 50_000_000) == nil, "a fast link keeps the ladder as it is")
        let down = try #require(measure(&follower, link: 1_000_000))
        #expect(down.sent.map(\.name) == ["720p"] && down.bitRate(of: "720p") == 872_000, "the step down is taken at once")
        let up = try #require(measure(&follower, link: 5_000_000))
        #expect(up.sent.map(\.name) == ["720p"] && up.bitRate(of: "720p") == 3_000_000, "the rate goes up at once, the rungs not yet")
        let back = try #require(measure(&follower, link: 5_000_000))
        #expect(back.sent.map(\.name) == ["720p", "360p", "180p"], "the second measurement in a row brings them back")
        // A link on the edge: one good measurement between bad ones brings nothing back.
        _ = measure(&follower, link: 1_000_000)
        _ = measure(&follower, link: 5_000_000)
        _ = measure(&follower, link: 1_000_000)
        #expect(follower.plan.sent.map(\.name) == ["720p"])
    }

    /// An upload still going after longer than the link at the plan's rate would take: the
    /// link is slower than that, and the plan steps down before the upload ends, never up.
    @Test func anUploadThatTakesTooLongStepsDownBeforeItEnds() throws {
        var follower = PushRateFollower(ladder: ladder, rule: UploadBitRate(ratio: 1))
        // 1 MB (a 2 s segment of the whole ladder) not through after 1 s: below 8 Mbit/s,
        // which carries the ladder: nothing changes yet.
        #expect(follower.stillUploading(bytes: 1_000_000, seconds: 1) == nil)
        // After 4 s: below 2 Mbit/s: the best rung alone, at what the bound leaves.
        let stepped = follower.stillUploading(bytes: 1_000_000, seconds: 4)
        let down = try #require(stepped)
        #expect(down.sent.map(\.name) == ["720p"] && down.bitRate(of: "720p") == 1_872_000)
        #expect(follower.stillUploading(bytes: 1_000_000, seconds: 3) == nil, "a looser bound never steps up")
        #expect(follower.stillUploading(bytes: 1_000_000, seconds: 0) == nil)
    }

    /// The watchdog sleeps until the moment `stillUploading` would step down: the plan's rungs
    /// and their audio (4.384 Mbit/s) no longer fit the bound 1 MB gives.
    @Test func theWatchdogKnowsWhenAnUploadHasTakenTooLong() throws {
        var follower = PushRateFollower(ladder: ladder, rule: UploadBitRate(ratio: 1))
        let due = try #require(follower.stepDownAfter(bytes: 1_000_000))
        #expect(abs(due - 8_000_000.0 / 4_384_000) < 1e-9)
        #expect(follower.stillUploading(bytes: 1_000_000, seconds: due * 0.99) == nil)
        #expect(follower.stillUploading(bytes: 1_000_000, seconds: due * 1.01) != nil)
        // The best rung alone at the minimum cannot go lower: nothing to wake for.
        _ = follower.stillUploading(bytes: 1_000, seconds: 1_000)
        #expect(follower.plan.sent.map(\.name) == ["720p"] && follower.plan.bitRate(of: "720p") == 100_000)
        #expect(follower.stepDownAfter(bytes: 1_000_000) == nil)
    }
}

/// push's numbering: slot k starts k x D after the first run's start.
@Suite struct PushTimelineTests {
    @Test func aRestartNumbersOnFromTheWallClock() {
        let epoch = Date(timeIntervalSince1970: 1_800_000_000)
        let timeline = PushTimeline(epoch: epoch, segmentDuration: 2)
        #expect(timeline.firstSlot(startingAt: epoch) == 0)
        #expect(timeline.firstSlot(startingAt: epoch.addingTimeInterval(61)) == 31, "the first slot that starts no earlier than now")
        #expect(timeline.firstSlot(startingAt: epoch.addingTimeInterval(60)) == 30)
        #expect(timeline.firstSlot(startingAt: epoch.addingTimeInterval(-5)) == 0, "a clock set back starts at 0, not below")
        #expect(timeline.start(of: 31) == epoch.addingTimeInterval(62), "a restarted run waits for its first slot's start")
        #expect(timeline.firstSlot(startingAt: epoch.addingTimeInterval(61), after: 40) == 41, "never a slot already queued (a clock set back)")
        #expect(timeline.firstSlot(startingAt: epoch.addingTimeInterval(61), after: 12) == 31)
    }

    /// A new queue's epoch is the next multiple of D since 1970 at or after the first run's
    /// start (an angle set's rule), so a pusher cuts where the server's set does.
    @Test(arguments: [
        (1_800_000_000.000, 2.0, 1_800_000_000.000),
        (1_800_000_000.231, 2.0, 1_800_000_002.000),
        (1_800_000_001.999, 2.0, 1_800_000_002.000),
        (1_800_000_002.0004, 2.0, 1_800_000_004.000), // in whole milliseconds, rounded up: past the boundary
        (1_800_000_001.000, 6.0, 1_800_000_006.000),
        (1_800_000_000.100, 2.5, 1_800_000_002.500),
    ])
    func aNewTimelineStartsOnTheGridOfMultiplesOfD(now: Double, duration: Double, epoch: Double) {
        let timeline = PushTimeline.starting(at: Date(timeIntervalSince1970: now), segmentDuration: duration)
        #expect(abs(timeline.epoch.timeIntervalSince1970 - epoch) < 0.000_5, "\(timeline.epoch.timeIntervalSince1970)")
        #expect(timeline.segmentDuration == duration)
        #expect(timeline.firstSlot(startingAt: Date(timeIntervalSince1970: now)) == 0, "the first run takes slot 0, waiting less than D for it")
        #expect(timeline.epoch.timeIntervalSince1970 - now < duration)
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
              case .stop = decide(.segment, 404, now: 100, backoff: &backoff), case .stop = decide(.playlist, 410, now: 100, backoff: &backoff),
              case .drop = decide(.segment, 400, now: 100, backoff: &backoff), case .drop = decide(.segment, 413, now: 100, backoff: &backoff),
              case .stop = decide(.document, 409, now: 100, backoff: &backoff) else {
            Issue.record("401, 403, 404 and 410 stop push, and 409 on the master (another ladder kept); 400 and 413 drop a segment")
            return
        }
        #expect(backoff.failures == 0, "nothing was waited for")
    }

    /// A playlist refused with 400 may name segments the server lost (its data directory was
    /// emptied): they are sent again once; a second 400 stops push.
    @Test func aRefusedPlaylistHasItsSegmentsSentAgainOnceThenStops() {
        var backoff = Backoff.uploadRetry
        #expect(decide(.playlist, 400, now: 100, backoff: &backoff) == .resendSegments)
        guard case .stop = UploadRetry.decide(.playlist, status: 400, reason: "why", firstAttempt: 100, now: 100, segmentDuration: 2, resent: true, backoff: &backoff) else {
            Issue.record("a second 400 stops push")
            return
        }
        // The master and the metadata have no segments to send again: a 400 stops at once.
        guard case .stop = decide(.document, 400, now: 100, backoff: &backoff), case .retry = decide(.document, nil, now: 100, backoff: &backoff) else {
            Issue.record("a document is retried like a playlist and stops on a 400")
            return
        }
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

/// `push --to`: a server's ingest URL for one stream.
@Suite struct IngestTargetTests {
    @Test func theStreamComesFromTheURL() throws {
        let target = try IngestTarget.parse("http://10.0.0.2:8080/ingest/roof/").get()
        #expect(target.stream == "roof" && target.base.absoluteString == "http://10.0.0.2:8080/ingest/roof")
        #expect(try IngestTarget.parse("https://venue.example/ingest/north-1").get().stream == "north-1")
    }

    @Test func otherURLsAreRefusedWithAnExample() {
        for bad in ["10.0.0.2:8080/ingest/roof", "ftp://h/ingest/roof", "http://h/live/roof/master.m3u8", "http://h/ingest/roof/720p", "http://h/ingest/..", "http://h/ingest/roof?x=1"] {
            guard case let .failure(rejection) = IngestTarget.parse(bad) else {
                Issue.record("\(bad) was taken")
                continue
            }
            #expect(rejection.description.contains("http://10.0.0.2:8080/ingest/roof"), "\(rejection)")
        }
    }
}
