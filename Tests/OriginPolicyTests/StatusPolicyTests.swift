import OriginPolicy
import SidelineCore
import Testing

/// Every row of the status table (Docs/status-codes.md), as a pure function, then through the
/// registry with a manual clock: time is moved, never slept.
@Suite struct StatusPolicyTests {
    let policy = StatusPolicy()
    typealias Facts = StatusPolicy.Facts

    func facts(_ resource: StatusPolicy.Resource, _ phase: StatusPolicy.StreamPhase? = .live, server: StatusPolicy.ServerCondition = .serving,
               variantExists: Bool = true, playlistAvailable: Bool = true, lastPublished: Double? = 100, now: Double = 101) -> Facts {
        Facts(resource: resource, streamName: "main", server: server, stream: phase, variantExists: variantExists, playlistAvailable: playlistAvailable,
              targetDuration: 2, lastPublished: lastPublished, servingSince: 0, now: now)
    }

    func status(_ facts: Facts) -> Int {
        switch policy.decide(facts) {
        case .serve: 200
        case let .refuse(refusal): refusal.status
        }
    }

    static let playlists: [StatusPolicy.Resource] = [.masterPlaylist, .mediaPlaylist, .iFramePlaylist]

    @Test(arguments: playlists)
    func liveAndFreshPlaylistIs200WithHalfTargetDurationCaching(resource: StatusPolicy.Resource) {
        #expect(policy.decide(facts(resource)) == .serve(.livePlaylist(maxAge: 1)))
    }

    @Test func liveSegments() {
        #expect(policy.decide(facts(.segment(.listed))) == .serve(.segment))
        #expect(status(facts(.segment(.unlisted))) == 404)
    }

    @Test func inputLostStaysServedWhileItAdvances() {
        // slate and gap keep publishing: the playlist stays 200
        #expect(status(facts(.mediaPlaylist, .inputLost, lastPublished: 100, now: 102)) == 200)
        #expect(status(facts(.segment(.listed), .inputLost)) == 200)
        #expect(status(facts(.segment(.gap), .inputLost)) == 404)
        // stale policy: it stops advancing, then it is stale
        #expect(status(facts(.mediaPlaylist, .inputLost, lastPublished: 100, now: 104.1)) == 404)
    }

    @Test func aMirrorWithoutItsUpstreamServesItsVODRenditionLongAfterTheLastEntry() {
        // Offline, the mirror's playlists are complete (VOD): never stale, cached briefly
        // because they become EVENT again when the upstream returns.
        #expect(policy.decide(facts(.mediaPlaylist, .upstreamLost, lastPublished: 100, now: 4000)) == .serve(.livePlaylist(maxAge: 1)))
        #expect(policy.decide(facts(.iFramePlaylist, .upstreamLost, lastPublished: 100, now: 4000)) == .serve(.livePlaylist(maxAge: 1)))
        #expect(policy.decide(facts(.masterPlaylist, .upstreamLost)) == .serve(.livePlaylist(maxAge: 1)))
        #expect(status(facts(.segment(.listed), .upstreamLost)) == 200)
        #expect(status(facts(.segment(.unlisted), .upstreamLost)) == 404)
    }

    @Test func aGapSegmentIs404AndCacheableForATargetDuration() {
        guard case let .refuse(refusal) = policy.decide(facts(.segment(.gap))) else {
            Issue.record("a GAP segment must be refused")
            return
        }
        #expect(refusal.status == 404)
        #expect(refusal.retryAfter == nil)
        #expect(refusal.cache == .gapSegment(maxAge: 2))
        #expect(refusal.cache.headerValue == "public, max-age=2")
    }

    @Test func staleMeansNothingNewForOneAndAHalfTargetDurationsPastTheGrace() {
        // threshold 3 s for a 2 s target duration, and the 1 s late grace
        #expect(status(facts(.mediaPlaylist, lastPublished: 100, now: 104)) == 200)
        #expect(status(facts(.mediaPlaylist, lastPublished: 100, now: 104.001)) == 404)
        #expect(status(facts(.iFramePlaylist, lastPublished: 100, now: 105)) == 404)
        // the grace is the stream's (`stream.late_grace`)
        #expect(StatusPolicy(lateGrace: 0).isStale(facts(.mediaPlaylist, lastPublished: 100, now: 103.001)))
        #expect(!StatusPolicy(lateGrace: 2.5).isStale(facts(.mediaPlaylist, lastPublished: 100, now: 105.5)))
        // the master does not change, so it is never stale; listed segments stay 200
        #expect(status(facts(.masterPlaylist, lastPublished: 100, now: 200)) == 200)
        #expect(status(facts(.segment(.listed), lastPublished: 100, now: 200)) == 200)
    }

    /// A camera stalls just after an entry was listed at its due time: the next slot is due a
    /// segment duration later and filled with a stand-in at its deadline, a grace after that,
    /// and the timer that fills it fires a little later still. The playlist was fresh all along;
    /// before the grace counted, it answered 404 in that moment (1 of 3 stalls of the sample,
    /// 2026-12-07), and ffmpeg 5.1 gives up on a media playlist that answers 404.
    @Test func aStallsFirstStandInListedOnTimeFindsThePlaylistFresh() {
        let segmentDuration = 2.0, grace = LateSegmentFill.defaultGrace, timerLag = 0.3
        let listedOnTime = 100.0
        let filled = listedOnTime + segmentDuration + grace + timerLag
        for reload in stride(from: listedOnTime, through: filled, by: 0.05) {
            #expect(status(facts(.mediaPlaylist, lastPublished: listedOnTime, now: reload)) == 200, "reloaded at \(reload)")
        }
    }

    @Test func theStaleClockStartsNoEarlierThanTheProcess() {
        // restored from disk: published long ago by an earlier process, nothing yet by this one;
        // the first segment needs a whole target duration of input, so it has 2 + 3 + 1 s
        var restored = Facts(resource: .mediaPlaylist, streamName: "main", stream: .live, targetDuration: 2, lastPublished: nil, servingSince: 50, now: 55.9)
        #expect(policy.decide(restored) == .serve(.livePlaylist(maxAge: 1)))
        restored.lastPublished = 10 // an old stamp never counts from before the process
        #expect(policy.decide(restored) == .serve(.livePlaylist(maxAge: 1)))
        restored.now = 56.1
        #expect(status(restored) == 404)
        // once this process has published, the usual 1.5 target durations past the grace apply
        restored.lastPublished = 52
        #expect(status(restored) == 404)
        restored.lastPublished = 52.2
        #expect(status(restored) == 200)
    }

    @Test(arguments: playlists)
    func endedPlaylistsAre200AndLongCacheableNeverStale(resource: StatusPolicy.Resource) {
        #expect(policy.decide(facts(resource, .ended, lastPublished: 0, now: 10_000)) == .serve(.endedPlaylist))
        #expect(status(facts(.segment(.listed), .ended)) == 200)
    }

    @Test(arguments: playlists + [.segment(.listed), .segment(.gap), .segment(.unlisted)])
    func removedIs410AndCacheable(resource: StatusPolicy.Resource) {
        #expect(policy.decide(facts(resource, .removed)) == .refuse(Refusal(.streamRemoved, "stream was removed", cache: .gone)))
    }

    @Test(arguments: playlists + [.segment(.listed)])
    func drainingAndOverloadAre503WithRetryAfter(resource: StatusPolicy.Resource) {
        #expect(policy.decide(facts(resource, server: .draining)) == .refuse(Refusal(.draining, "server is shutting down", retryAfter: 5)))
        #expect(policy.decide(facts(resource, server: .overloaded)) == .refuse(Refusal(.overloaded, "server is busy", retryAfter: 1)))
        // before anything else: even a removed or unknown stream
        #expect(status(facts(resource, nil, server: .draining)) == 503)
    }

    @Test(arguments: playlists)
    func startingPlaylistsAre503WithRetryAfterOneTargetDuration(resource: StatusPolicy.Resource) {
        #expect(policy.decide(facts(resource, .starting, playlistAvailable: false, lastPublished: nil))
            == .refuse(Refusal(.starting, "stream is starting; no segment yet", retryAfter: 2)))
    }

    @Test func unknownStreamOrVariantIs404() {
        #expect(status(facts(.masterPlaylist, nil)) == 404)
        #expect(status(facts(.mediaPlaylist, variantExists: false)) == 404)
        #expect(status(facts(.segment(.listed), variantExists: false)) == 404)
        // the master has no variant
        #expect(status(facts(.masterPlaylist, variantExists: false)) == 200)
    }
}
