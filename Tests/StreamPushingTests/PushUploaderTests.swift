import Foundation
import HLSPlaylist
import SidelineCore
import SidelineTesting
import StreamPushing
import Synchronization
import Testing

/// The uploader's decisions on simulated time, behind a simulated link and server: the order
/// of uploads, a cut, a step of the link down and back up, refusals, the watchdog, stopping.
/// Each simulates up to two minutes of push in milliseconds.
@Suite struct PushUploaderTests {
    static func segment(_ variant: String, _ slot: Int) -> String { "\(variant)/\(PushQueue.segmentName(slot: slot))" }
    static let variants = UploaderRig.rungs.map(\.name)

    /// `times` as offsets from the first, to the microsecond.
    static func offsets(_ times: [Double]) -> [Double] {
        times.map { (($0 - times[0]) * 1e6).rounded() / 1e6 }
    }

    @Test func theMetadataAndTheMasterGoFirstThenEachSlotBestRungFirstEachSegmentFollowedByItsPlaylist() throws {
        let rig = UploaderRig(rate: nil, metadata: StreamMetadata(title: "Roof"))
        rig.start(slots: 0..<2)
        #expect(rig.runToEnd())
        #expect(rig.refusal == nil)
        var expected = ["metadata", "master.m3u8"]
        for slot in 0..<2 {
            for variant in Self.variants { expected += [Self.segment(variant, slot), "\(variant)/index.m3u8"] }
        }
        #expect(rig.link.requests.map(\.path) == expected)
        #expect(rig.link.server.metadata.first?.contains("\"title\":\"Roof\"") == true)
        let master = try MultivariantPlaylist.parse(try #require(rig.link.server.masters.first))
        #expect(master.variants.map(\.uri) == Self.variants.map { "\($0)/index.m3u8" })
        // Each segment goes up the moment it is finished: the wait for work is woken, not polled.
        #expect(rig.link.requests(to: Self.segment("720p", 1)).map(\.at) == [rig.started + 4])
        for variant in Self.variants { #expect(rig.link.server.listed[variant] == [0, 1]) }
        #expect(rig.store.count == 0 && rig.uploader.snapshot.acknowledged == 6)
    }

    @Test func anIdleUploaderWaitsWithoutATimerAndAStopEndsItAtTheDrainDeadline() {
        let rig = UploaderRig(rate: nil)
        rig.startUploader()
        #expect(!rig.time.run(until: { rig.ended }), "nothing to send: it waits, and no timer is left to fire")
        #expect(rig.elapsed == 0)
        rig.encode(slot: 0)
        rig.time.run()
        #expect(rig.link.server.listed["720p"] == [0], "woken at once")
        #expect(rig.elapsed == 0)
        rig.uploader.drain(for: 5)
        #expect(rig.runToEnd())
        #expect(rig.elapsed == 5, "the pipeline never said it finished: the drain deadline ends the run")
    }

    /// The link cut for 30 s in the middle of a minute of push: the segments wait in the
    /// queue, the backlog goes up when the link is back in the order `push.backlog` says, and
    /// every slot of every rung is listed once.
    @Test(arguments: [PushBacklog.liveFirst, .catchUp])
    func aCutLosesNothingAndTheBacklogGoesUpInItsOrder(backlog: PushBacklog) throws {
        let rig = UploaderRig(backlog: backlog)
        rig.start(slots: 0..<30)
        rig.time.run(for: 11)
        #expect(rig.uploader.snapshot.queued == 0, "slots 0 to 4 went up")
        rig.link.set(down: true)
        rig.time.run(for: 30)
        #expect(rig.uploader.snapshot.queued >= 15 * 3, "15 slots made during the cut wait in the queue")
        let restored = rig.time.now
        rig.link.set(down: false)
        #expect(rig.runToEnd())
        #expect(rig.refusal == nil)
        let server = rig.link.server
        #expect(server.problems.isEmpty, "\(server.problems)")
        for variant in Self.variants {
            #expect(server.listed[variant]?.sorted() == Array(0..<30), "\(variant): every slot listed once")
        }
        #expect(rig.store.count == 0 && rig.uploader.snapshot.queued == 0)
        // Slots 5 to 19 were made during the cut.
        let firstBack = try #require(rig.link.requests.first { $0.at >= restored && $0.status == 201 && $0.path.hasSuffix(".ts") })
        let firstBackSlot = try #require(Int(firstBack.path.dropFirst(5).dropLast(3)))
        switch backlog {
        case .catchUp:
            #expect(firstBack.path == Self.segment("720p", 5), "catch-up: the oldest first")
            #expect(server.listed["720p"] == Array(0..<30), "and everything in order")
        case .liveFirst:
            #expect(firstBack.path.hasPrefix("720p/") && firstBackSlot >= 18, "live-first: the live edge first (\(firstBack.path))")
            #expect(server.listed["720p"] != Array(0..<30), "the backlog behind the live edge")
        }
        let failing = rig.reported().filter { if case .uploadFailing = $0 { true } else { false } }
        #expect(failing.count == 1, "the first failure is reported; the rest show on the status line")
        #expect(rig.reported().contains(.uploadsRecovered))
    }

    /// DASH-IF practice, through `Backoff.uploadRetry`: a segment is retried after 0.2, 0.4,
    /// 0.8 and 1.6 s, and once a segment duration has passed it is left for the backlog.
    @Test func aSegmentIsRetriedOnTheBackoffForOneSegmentDurationThenLeftForTheBacklog() throws {
        let rig = UploaderRig(rate: nil)
        rig.start(slots: 0..<2)
        // The master first (it holds everything up until it goes through), then the cut.
        rig.time.run(for: 1)
        #expect(rig.link.server.masters.count == 1)
        rig.link.set(down: true)
        rig.time.run(for: 4.5)
        let attempts = rig.link.requests(to: Self.segment("720p", 0)).map(\.at)
        #expect(Self.offsets(Array(attempts.prefix(5))) == [0, 0.2, 0.6, 1.4, 3.0])
        // Slot 1 came at 4 s: once slot 0 is left for the backlog (at 5 s), the live edge goes first.
        #expect(rig.link.requests(to: Self.segment("720p", 1)).first?.at == attempts.dropFirst(4).first)
        #expect(rig.uploader.snapshot.lastFailure?.hasPrefix("segment 720p/") == true)
        rig.link.set(down: false)
        #expect(rig.runToEnd())
        #expect(rig.link.server.listed["720p"]?.sorted() == [0, 1])
    }

    /// The link drops from 10 to 1 Mbit/s, then comes back: the watchdog steps the plan down
    /// during the first slow upload, before it ends; the lower rungs are dropped (their
    /// segments let go, the server fills them); back up, the rate rises at the first
    /// measurement and the rungs return at the second.
    @Test func theBitRateFollowsTheLinkDownAndBackUp() throws {
        let rig = UploaderRig(rate: 10_000_000)
        rig.start(slots: 0..<40)
        rig.time.run(for: 21)
        #expect(rig.planChanges().isEmpty, "10 Mbit/s carries the ladder")
        rig.link.set(rate: 1_000_000)
        let slowFrom = rig.time.now
        rig.time.run(for: 29)
        let down = rig.planChanges()
        // The first slow upload: slot 10's best rung, at 22 s, 516 kB: 4.1 s at 1 Mbit/s.
        let slow = try #require(rig.link.requests.first { $0.at >= slowFrom && $0.path.hasSuffix(".ts") })
        #expect(slow.path == Self.segment("720p", 10) && slow.at == rig.started + 22)
        let first = try #require(down.first)
        let fresh = PushRateFollower(ladder: rig.uploader.settings.ladder, rule: UploadBitRate())
        let due = try #require(fresh.stepDownAfter(bytes: (2_000_000 + UploaderRig.audio) * 2 / 8))
        #expect(first.change.measured == nil, "the watchdog, not a measurement")
        #expect(abs(first.at - (slow.at + due)) < 1e-9, "at the moment the bound falls below the plan")
        #expect(first.at < slow.at + 4, "before the upload ended")
        let watchdogSteps = down.filter { $0.change.measured == nil }.map(\.at)
        #expect(zip(watchdogSteps, watchdogSteps.dropFirst()).allSatisfy { $1 - $0 >= PushRateFollower.stepInterval - 1e-9 })
        let plan = rig.uploader.snapshot.plan
        #expect(plan.sent.map(\.name) == ["720p"] && plan.dropped == ["360p", "180p"])
        #expect(plan.videoBitRate + UploaderRig.audio <= 700_000, "within 0.7 of the link: \(plan.videoBitRate)")

        rig.link.set(rate: 10_000_000)
        let fastFrom = rig.time.now
        #expect(rig.runToEnd())
        // Changes made by measurements over the fast link (one slow upload may end after it).
        let up = rig.planChanges().filter { $0.at > fastFrom && ($0.change.measured ?? 0) > 5_000_000 }
        try #require(up.count >= 2)
        #expect(up[0].change.plan.sent.map(\.name) == ["720p"] && up[0].change.plan.bitRate(of: "720p") == 2_000_000, "the rate up at once")
        #expect(up[1].change.plan.sent.map(\.name) == Self.variants, "the rungs at the second measurement")
        #expect(up[1].at - fastFrom < 6, "within a few slots")
        // Nothing lost: the best rung has every slot; a dropped rung's slots are the server's to fill.
        let server = rig.link.server
        #expect(server.listed["720p"]?.sorted() == Array(0..<40))
        let dropped = Set(0..<40).subtracting(server.listed["360p"] ?? [])
        #expect(!dropped.isEmpty && dropped.allSatisfy { Double($0 * 2 + 2) > slowFrom - rig.started && Double($0 * 2 + 2) <= fastFrom - rig.started + 4 }, "\(dropped.sorted())")
        #expect(server.problems.isEmpty && rig.store.count == 0)
    }

    /// A stalled connection: the upload is given up at its limit (10 s, four segment durations
    /// at least) on the injected clock, and the watchdog has stepped the plan down meanwhile,
    /// at most four times a second; the master naming the rungs left goes next.
    @Test func aStalledUploadIsGivenUpAtItsLimit() throws {
        let rig = UploaderRig(rate: 10_000_000, backlog: .catchUp)
        rig.start(slots: 0..<3)
        rig.time.run(for: 1)
        rig.link.set(stalled: true)
        rig.time.run(for: 24)
        let stalled = try #require(rig.link.requests(to: Self.segment("720p", 0)).first)
        #expect(stalled.at == rig.started + 2 && stalled.answeredAt == stalled.at + 10 && stalled.status == nil, "given up at 10 s: \(stalled)")
        #expect(rig.uploader.snapshot.lastFailure?.contains("no answer within 10 s") == true)
        let steps = rig.planChanges().filter { $0.at < stalled.answeredAt }
        #expect(!steps.isEmpty && steps.allSatisfy { $0.change.measured == nil })
        #expect(steps.count <= Int(10 / PushRateFollower.stepInterval) + 1)
        #expect(rig.uploader.snapshot.plan.dropped == ["360p", "180p"])
        let next = try #require(rig.link.requests.first { $0.at >= stalled.answeredAt })
        #expect(next.path == "master.m3u8" && next.at == stalled.answeredAt, "the master without the dropped rungs first")
        rig.link.set(stalled: false)
        #expect(rig.runToEnd())
        #expect(rig.link.server.listed["720p"]?.sorted() == [0, 1, 2])
        #expect(rig.link.server.masters.contains { !$0.contains("360p") }, "the master without the dropped rungs went up")
    }

    /// 401, 403, 404 and 410 end push at once with the message that says what to fix; what
    /// was queued stays queued for the next run.
    @Test(arguments: [(401, "refused the ingest token (401"), (403, "refused to take this stream (403"),
                      (404, "no such stream or variant (404"), (410, "removed this stream (410")])
    func refusalsRetryingCannotFixEndPushAndKeepTheQueue(status: Int, message: String) throws {
        let rig = UploaderRig(rate: nil)
        rig.link.script(Self.segment("720p", 0), [status])
        rig.start(slots: 0..<3)
        #expect(rig.runToEnd())
        let refusal = try #require(rig.refusal)
        #expect(refusal.description.contains(message), "\(refusal)")
        #expect(rig.link.requests(to: Self.segment("720p", 0)).count == 1, "not retried")
        #expect(rig.store.count == 3 && rig.uploader.snapshot.queued == 3, "slot 0 of every rung stays queued")
    }

    @Test(arguments: [500, 502, 503])
    func serverErrorsAreRetried(status: Int) {
        let rig = UploaderRig(rate: nil)
        rig.link.script(Self.segment("720p", 0), [status, status])
        rig.link.script("360p/index.m3u8", [status, status, status, status, status, status])
        rig.start(slots: 0..<2)
        #expect(rig.runToEnd())
        let segment = rig.link.requests(to: Self.segment("720p", 0))
        #expect(Self.offsets(segment.map(\.at)) == [0, 0.2, 0.6] && segment.map(\.status) == [status, status, 201])
        // A playlist is what makes segments visible: retried past a segment duration, never deferred.
        let playlist = rig.link.requests(to: "360p/index.m3u8").prefix(7)
        #expect(Self.offsets(playlist.map(\.at)) == [0, 0.2, 0.6, 1.4, 3.0, 5.0, 7.0])
        #expect(rig.link.requests(to: Self.segment("360p", 0)).count == 1)
        for variant in Self.variants { #expect(rig.link.server.listed[variant]?.sorted() == [0, 1]) }
    }

    /// 400 or 413 on a segment: the server will never take it; it leaves the queue (the
    /// server fills its slot) and the rest goes on.
    @Test(arguments: [400, 413])
    func aSegmentRefusedForGoodIsDroppedAndTheRestGoesOn(status: Int) {
        let rig = UploaderRig(rate: nil)
        rig.link.script(Self.segment("360p", 0), [status])
        rig.start(slots: 0..<2)
        #expect(rig.runToEnd())
        #expect(rig.refusal == nil)
        #expect(rig.link.requests(to: Self.segment("360p", 0)).count == 1)
        #expect(rig.link.server.listed["360p"] == [1])
        #expect(rig.link.server.listed["720p"] == [0, 1] && rig.link.server.listed["180p"] == [0, 1])
        #expect(rig.reported().contains { if case .segmentDropped("360p", 0, _) = $0 { true } else { false } })
        #expect(rig.store.count == 0)
    }

    /// 400 on a playlist: the server may have lost what it received; the variant's segments go
    /// up again, then the playlist. A second 400 stops push: the stream's settings differ.
    @Test func aRefusedPlaylistHasItsSegmentsSentAgainOnceThenStopsPush() throws {
        let once = UploaderRig(rate: nil)
        once.link.script("720p/index.m3u8", [400])
        once.start(slots: 0..<1)
        #expect(once.runToEnd())
        #expect(once.refusal == nil)
        #expect(once.link.requests(to: Self.segment("720p", 0)).count == 2)
        #expect(once.link.server.listed["720p"] == [0])
        #expect(once.reported().contains { if case .playlistRefused("720p", _) = $0 { true } else { false } })

        let twice = UploaderRig(rate: nil)
        twice.link.script("720p/index.m3u8", [400, 400])
        twice.start(slots: 0..<1)
        #expect(twice.runToEnd())
        #expect(try #require(twice.refusal).description.contains("refused the playlist (400"))
    }

    @Test func aStopSendsWhatIsQueuedUntilTheDrainDeadlineAndKeepsTheRest() {
        let rig = UploaderRig(rate: nil)
        rig.start(slots: 0..<5)
        rig.time.run(for: 6.5)
        rig.link.set(down: true)
        rig.time.run(for: 4)
        rig.uploader.drain(for: 5)
        #expect(rig.runToEnd(within: 8))
        #expect(rig.elapsed <= 10.5 + 5 + 2, "at most one wait of the backoff past the deadline, and no attempt after it")
        #expect(rig.link.requests.last.map { $0.at < 15.5 + rig.started } == true)
        #expect(rig.uploader.snapshot.queued == 6, "slots 3 and 4 of every rung, left for the next run")
        #expect(rig.store.count == 6)
    }

    @Test func aSegmentTheStoreCannotKeepIsLetGo() {
        let rig = UploaderRig(rate: nil)
        rig.store.failsToKeep.withLock { $0 = true }
        rig.startUploader()
        rig.encode(slot: 0)
        rig.time.run()
        #expect(rig.uploader.snapshot.queued == 0)
        #expect(rig.reported().contains { if case .segmentNotKept("720p", 0, _) = $0 { true } else { false } })
    }
}
