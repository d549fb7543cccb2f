import HLSPlaylist
import StreamMirroring
import Testing

/// Row by row: when a mirror follows (EVENT), serves what it holds as VOD, or has ended.
/// Target duration 2 s and the default late grace (1 s), so the upstream is stale 4 s after its
/// last new entry, as its own stale rule says (`StatusPolicy.staleAfter`).
struct MirrorFreshnessTests {
    let freshness = MirrorFreshness()

    func mode(ended: Bool = false, caughtUp: Bool = true, advance: Double?, contact: Double? = nil, since: Double = 0, now: Double) -> MirrorFreshness.Mode {
        freshness.mode(.init(upstreamEnded: ended, caughtUp: caughtUp, lastAdvance: advance, lastContact: contact ?? advance, since: since, targetDuration: 2, now: now))
    }

    @Test func followsWhileTheUpstreamAdvances() {
        #expect(mode(advance: 100, now: 101) == .following)
        #expect(mode(advance: 100, now: 104) == .following, "exactly 1.5 target durations and the grace is not yet stale")
    }

    @Test func servesVODOnceTheUpstreamIsSilentForMoreThanOneAndAHalfTargetDurationsAndTheGrace() {
        #expect(mode(advance: 100, now: 104.01) == .offline)
        // Reachable but not advancing (its camera stopped under the `stale` policy) is stale too.
        #expect(mode(advance: 100, contact: 110, now: 110) == .offline)
    }

    @Test func beforeAnyContactTheClockStartsWithTheMirror() {
        #expect(mode(advance: nil, contact: nil, since: 50, now: 52) == .following)
        #expect(mode(advance: nil, contact: nil, since: 50, now: 54.5) == .offline, "an upstream that never answered: serve what was recorded before")
    }

    /// An upstream camera stalls at 100: the upstream fills its slot one segment plus the grace
    /// after the last entry (103, its ticker up to 0.1 s later), and the mirror sees it a
    /// moment after (blocking reload); its mode is checked every 0.5 s meanwhile. Never VOD:
    /// a player on the mirror would take EXT-X-ENDLIST for the end of the stream. (Without the
    /// grace, the checks at 103.1 and 103.5 said VOD.)
    @Test func anUpstreamStallsFirstStandInNeverTurnsTheMirrorVOD() {
        for now in stride(from: 100.0, through: 103.6, by: 0.1) {
            #expect(mode(advance: 100, contact: now, now: now) == .following, "at \(now)")
        }
        #expect(mode(advance: 103.4, now: 103.6) == .following)
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
