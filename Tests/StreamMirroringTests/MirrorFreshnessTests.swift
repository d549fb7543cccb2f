import HLSPlaylist
import StreamMirroring
import Testing

/// Row by row: when a mirror follows (EVENT), serves what it holds as VOD, or has ended.
/// Target duration 2 s, so the upstream is stale 3 s after its last new entry.
struct MirrorFreshnessTests {
    let freshness = MirrorFreshness()

    func mode(ended: Bool = false, caughtUp: Bool = true, advance: Double?, contact: Double? = nil, since: Double = 0, now: Double) -> MirrorFreshness.Mode {
        freshness.mode(.init(upstreamEnded: ended, caughtUp: caughtUp, lastAdvance: advance, lastContact: contact ?? advance, since: since, targetDuration: 2, now: now))
    }

    @Test func followsWhileTheUpstreamAdvances() {
        #expect(mode(advance: 100, now: 101) == .following)
        #expect(mode(advance: 100, now: 103) == .following, "exactly 1.5 target durations is not yet stale")
    }

    @Test func servesVODOnceTheUpstreamIsSilentForMoreThanOneAndAHalfTargetDurations() {
        #expect(mode(advance: 100, now: 103.01) == .offline)
        // Reachable but not advancing (its camera stopped under the `stale` policy) is stale too.
        #expect(mode(advance: 100, contact: 110, now: 110) == .offline)
    }

    @Test func beforeAnyContactTheClockStartsWithTheMirror() {
        #expect(mode(advance: nil, contact: nil, since: 50, now: 52) == .following)
        #expect(mode(advance: nil, contact: nil, since: 50, now: 53.5) == .offline, "an upstream that never answered: serve what was recorded before")
    }

    @Test func followsAgainWhenTheUpstreamAdvancesAgain() {
        #expect(mode(advance: 100, now: 200) == .offline)
        #expect(mode(advance: 199.5, now: 200) == .following)
    }

    @Test func anEndedUpstreamEndsTheMirrorOnceItHoldsEverything() {
        #expect(mode(ended: true, caughtUp: true, advance: 100, contact: 100, now: 5000) == .ended, "ended for good, even with the upstream gone")
        #expect(mode(ended: true, caughtUp: false, advance: 100, contact: 150, now: 151) == .following, "still fetching: fresh while the upstream answers")
        #expect(mode(ended: true, caughtUp: false, advance: 100, contact: 150, now: 160) == .offline, "the upstream left before the mirror had it all")
    }

    @Test func renditionsPerMode() {
        let listed = MediaPlaylist(targetDuration: 2, playlistType: .event, segments: [MediaSegment(uri: "000000.ts", duration: 2)])
        let following = MirrorFreshness.rendition(of: listed, in: .following)
        #expect(following.playlistType == .event && !following.endList)
        let offline = MirrorFreshness.rendition(of: listed, in: .offline)
        #expect(offline.playlistType == .vod && offline.endList && offline.segments == listed.segments)
        let ended = MirrorFreshness.rendition(of: listed, in: .ended)
        #expect(ended.playlistType == .event && ended.endList)
        #expect(MirrorFreshness.rendition(of: offline, in: .following).endList == false, "EVENT again after VOD")
    }
}
