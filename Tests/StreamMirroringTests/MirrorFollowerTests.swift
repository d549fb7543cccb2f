import Foundation
import HLSPlaylist
import SidelineCore
import SidelineTesting
import StreamMirroring
import Synchronization
import Testing

/// An upstream Sideline in memory: playlists and segments by URL path, each answer changeable,
/// every request recorded.
final class FakeUpstream: UpstreamFetching {
    struct Down: Error {}
    /// Answers by path, in order: each request takes the first; the last one stays.
    private let answers = Mutex<[String: [UpstreamAnswer]]>([:])
    private let log = Mutex<[URL]>([])
    private let down = Mutex(false)

    func set(_ path: String, _ answer: UpstreamAnswer) { answers.withLock { $0[path] = [answer] } }
    /// `path` answers `first` to the next `times` requests, then `then`.
    func set(_ path: String, _ first: UpstreamAnswer, times: Int, then: UpstreamAnswer) {
        answers.withLock { $0[path] = Array(repeating: first, count: times) + [then] }
    }
    func set(_ path: String, playlist text: String) { set(path, UpstreamAnswer(status: 200, body: Array(text.utf8))) }
    func setDown(_ isDown: Bool) { down.withLock { $0 = isDown } }
    var requests: [URL] { log.withLock { $0 } }

    func get(_ url: URL, gzip: Bool, timeout: Double) async throws -> UpstreamAnswer {
        log.withLock { $0.append(url) }
        if down.withLock({ $0 }) { throw Down() }
        return answers.withLock { answers -> UpstreamAnswer? in
            guard var queue = answers[url.path], let first = queue.first else { return nil }
            if queue.count > 1 {
                queue.removeFirst()
                answers[url.path] = queue
            }
            return first
        } ?? UpstreamAnswer(status: 404, body: Array("no such resource".utf8))
    }
}

/// The disk and the origin in memory.
final class FakeDestination: MirrorDestination {
    struct Stored: Sendable {
        var segments: [String: [UInt8]] = [:]
        var playlists: [String: MediaPlaylist] = [:]
        var views: [String: [MirrorView]] = [:]
        var modes: [MirrorFreshness.Mode] = []
        var master: MultivariantPlaylist?
        var earlier: [String: StoredVariant] = [:]
    }

    let state = Mutex(Stored())

    func storedMaster() -> MultivariantPlaylist? { state.withLock { $0.master } }
    func stored(variant: String) throws -> StoredVariant { state.withLock { $0.earlier[variant] } ?? StoredVariant() }
    func storeSegment(_ bytes: [UInt8], named name: String, variant: String) async throws { state.withLock { $0.segments["\(variant)/\(name)"] = bytes } }
    func storePlaylists(_ media: MediaPlaylist, iFrames: MediaPlaylist?, variant: String) async throws { state.withLock { $0.playlists[variant] = media } }
    func storeMaster(_ master: MultivariantPlaylist) throws { state.withLock { $0.master = master } }
    func register(title: String, variants: [String], targetDuration: Int) {}
    func show(_ view: MirrorView, variant: String) { state.withLock { $0.views[variant, default: []].append(view) } }
    func setMode(_ mode: MirrorFreshness.Mode) { state.withLock { $0.modes.append(mode) } }
    var servedMaster: String? { state.withLock { $0.master?.render() } }

    func lastView(_ variant: String) -> MirrorView? { state.withLock { $0.views[variant]?.last } }
}

/// The follower's decisions over an upstream in memory and a manual clock: blocking reload,
/// checks, lost segments, retries through the one Backoff, conflicts, and the mode.
@Suite struct MirrorFollowerTests {
    let start = Date(timeIntervalSince1970: 1_790_000_000)
    let media = URL(string: "http://venue:8080/live/main/720p/index.m3u8")!

    /// A whole segment: `packets` TS packets, PAT first.
    static func segment(packets: Int = 4) -> [UInt8] { TestSegments.minimal(packets: packets) }

    func playlist(_ count: Int, ended: Bool = false, blocking: Bool = true) -> String {
        var text = MediaPlaylist(targetDuration: 2, segments: (0..<count).map { index in
            MediaSegment(uri: StreamLayoutName.segment(index), duration: 2, programDateTime: start.addingTimeInterval(Double(index) * 2))
        }, endList: ended).render()
        if blocking { text = text.replacingOccurrences(of: "#EXT-X-TARGETDURATION:2\n", with: "#EXT-X-TARGETDURATION:2\n#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES\n") }
        return text
    }

    enum StreamLayoutName {
        static func segment(_ index: Int) -> String { String(format: "%06d.ts", index) }
    }

    final class Rig: Sendable {
        let upstream = FakeUpstream()
        let destination = FakeDestination()
        let clock = ManualClock()
        let events = Mutex<[MirrorEvent]>([])
        let sleeps = Mutex<[Double]>([])

        func follower(_ media: URL) throws -> MirrorFollower {
            try MirrorFollower(variant: "720p", mediaURL: media, iFramesURL: nil, targetDuration: 2, upstream: upstream, destination: destination,
                               clock: clock.read, sleep: { [self] seconds in
                                   // A follower that never stops (a regression) ends the test
                                   // instead of spinning: 200 waits is far more than any test needs.
                                   let count = sleeps.withLock { $0.append(seconds); return $0.count }
                                   if count > 200 { throw CancellationError() }
                                   clock.advance(by: seconds)
                               }, report: { [self] event in events.withLock { $0.append(event) } })
        }

        func serve(_ count: Int, from index: Int = 0) {
            for segment in index..<count { upstream.set("/live/main/720p/\(StreamLayoutName.segment(segment))", UpstreamAnswer(status: 200, body: MirrorFollowerTests.segment())) }
        }
    }

    @Test func downloadsChecksAndListsEverySegmentInOrder() async throws {
        let rig = Rig()
        rig.upstream.set("/live/main/720p/index.m3u8", playlist: playlist(3))
        rig.serve(3)
        let follower = try rig.follower(media)
        #expect(try await follower.reload())
        try await follower.fetchMissing()
        #expect(follower.held == ["000000.ts", "000001.ts", "000002.ts"])
        let view = try #require(rig.destination.lastView("720p"))
        #expect(view.kind == .grown && view.playlist.segments.map(\.uri) == ["000000.ts", "000001.ts", "000002.ts"])
        #expect(!view.playlist.endList, "EVENT while following")
        #expect(rig.upstream.requests.map(\.lastPathComponent) == ["index.m3u8", "000000.ts", "000001.ts", "000002.ts"])
        #expect(rig.destination.state.withLock { $0.playlists["720p"]?.segments.count } == 3, "the listing is stored")
    }

    /// draft-pantos-hls-rfc8216bis §6.2.5.2: with CAN-BLOCK-RELOAD=YES the next reload asks for
    /// the segment after the last listed; without it, the plain URL, polled.
    @Test func reloadsAskForTheNextSegmentWhenTheUpstreamOffersBlockingReload() async throws {
        let rig = Rig()
        rig.upstream.set("/live/main/720p/index.m3u8", playlist: playlist(3))
        rig.serve(3)
        let follower = try rig.follower(media)
        try await follower.reload()
        try await follower.reload()
        #expect(rig.upstream.requests.map(\.absoluteString) == [media.absoluteString, media.absoluteString + "?_HLS_msn=3"])
        let previous = try MediaPlaylist.parse(playlist(3))
        #expect(UpstreamRequests.reload(media, after: previous, canBlockReload: false) == media)
        #expect(UpstreamRequests.reload(URL(string: media.absoluteString + "?token=a")!, after: previous, canBlockReload: true).absoluteString
            == media.absoluteString + "?token=a&_HLS_msn=3", "a query the URL had is kept")
        var ended = previous
        ended.endList = true
        #expect(UpstreamRequests.reload(media, after: ended, canBlockReload: true) == media, "an ended playlist is not held")
    }

    @Test func aSegmentTheUpstreamLostIsListedAsAGapAndTheRestFollow() async throws {
        let rig = Rig()
        rig.upstream.set("/live/main/720p/index.m3u8", playlist: playlist(3))
        rig.serve(3)
        rig.upstream.set("/live/main/720p/000001.ts", UpstreamAnswer(status: 410, body: []))
        let follower = try rig.follower(media)
        try await follower.reload()
        try await follower.fetchMissing()
        let view = try #require(rig.destination.lastView("720p"))
        #expect(view.playlist.segments.map(\.gap) == [false, true, false])
        #expect(view.gaps == ["000001.ts"])
        #expect(rig.events.withLock { $0 }.contains(.segmentLost(variant: "720p", url: "http://venue:8080/live/main/720p/000001.ts", status: 410)))
    }

    @Test func aSegmentThatFailsItsCheckIsNotStoredAndTheRoundIsRetriedWithBackoff() async throws {
        let rig = Rig()
        rig.upstream.set("/live/main/720p/index.m3u8", playlist: playlist(2, ended: true))
        rig.serve(2)
        // A proxy answers the second segment with an error page four times, then lets it through.
        rig.upstream.set("/live/main/720p/000001.ts", UpstreamAnswer(status: 200, body: Array("<html>proxy error</html>".utf8)), times: 4,
                         then: UpstreamAnswer(status: 200, body: Self.segment()))
        let follower = try rig.follower(media)
        await follower.run()
        #expect(rig.sleeps.withLock { $0 } == [0.2, 0.4, 0.8, 1.0], "Backoff.upstreamRetry, and no wait once the upstream ended and all of it is held")
        #expect(rig.destination.state.withLock { $0.segments.keys.sorted() } == ["720p/000000.ts", "720p/000001.ts"], "the bad body was never stored")
        let events = rig.events.withLock { $0 }
        #expect(events.contains { if case let .upstreamFailed(_, reason, 1) = $0 { reason.contains("failed its check") } else { false } })
        #expect(events.contains { if case .upstreamBack = $0 { true } else { false } })
        #expect(follower.mode == .ended, "the upstream ended and all of it is held: the run ends")
    }

    @Test func anUpstreamThatRecordedAnewIsNotFollowed() async throws {
        let rig = Rig()
        rig.destination.state.withLock {
            $0.earlier["720p"] = StoredVariant(listed: try? MediaPlaylist.parse(playlist(2, blocking: false)), files: ["000000.ts": 752, "000001.ts": 752])
        }
        var other = try MediaPlaylist.parse(playlist(3))
        other.segments[0].duration = 1.5
        rig.upstream.set("/live/main/720p/index.m3u8", playlist: other.render())
        let follower = try rig.follower(media)
        #expect(rig.destination.lastView("720p")?.kind == .restored, "what an earlier run held is served at once")
        #expect(follower.held == ["000000.ts", "000001.ts"])
        #expect(try await !follower.reload())
        #expect(follower.mode == .offline, "served as VOD, no longer followed")
        await follower.run()
        #expect(rig.upstream.requests.count == 1, "run() returns at once after a conflict")
    }

    @Test func aMirrorServesVODWhenTheUpstreamGoesQuietAndEventWhenItReturns() async throws {
        let rig = Rig()
        rig.upstream.set("/live/main/720p/index.m3u8", playlist: playlist(2))
        rig.serve(2)
        let follower = try rig.follower(media)
        try await follower.reload()
        try await follower.fetchMissing()
        rig.clock.advance(by: 3.9)
        #expect(follower.refreshMode(now: rig.clock.now) == .following, "1.5 target durations and the late grace is 4 s")
        rig.clock.advance(by: 0.2)
        #expect(follower.refreshMode(now: rig.clock.now) == .offline)
        let offline = try #require(rig.destination.lastView("720p"))
        #expect(offline.kind == .reshaped && offline.playlist.endList && offline.playlist.playlistType == .vod)
        rig.upstream.set("/live/main/720p/index.m3u8", playlist: playlist(3))
        rig.serve(3)
        try await follower.reload()
        #expect(follower.mode == .following)
        #expect(rig.destination.lastView("720p").map { !$0.playlist.endList } == true)
    }

    @Test func aStreamsModeComesFromItsVariants() {
        #expect(MirrorFreshness.Mode.ofStream([.following, .following]) == .following)
        #expect(MirrorFreshness.Mode.ofStream([.following, .offline]) == .offline)
        #expect(MirrorFreshness.Mode.ofStream([.ended, .offline]) == .offline)
        #expect(MirrorFreshness.Mode.ofStream([.ended, .ended]) == .ended)
    }

    @Test func segmentAnswersMeanStoreLoseOrFail() {
        let url = URL(string: "http://venue/live/main/720p/000001.ts")!
        #expect(UpstreamRequests.segmentOutcome(UpstreamAnswer(status: 200, body: Self.segment(), announcedLength: 752), url: url) == .store)
        #expect(UpstreamRequests.segmentOutcome(UpstreamAnswer(status: 404, body: []), url: url) == .lost)
        #expect(UpstreamRequests.segmentOutcome(UpstreamAnswer(status: 410, body: []), url: url) == .lost)
        #expect(UpstreamRequests.segmentOutcome(UpstreamAnswer(status: 503, body: []), url: url) == .failed("\(url.absoluteString) answered 503"))
        #expect(UpstreamRequests.segmentOutcome(UpstreamAnswer(status: 200, body: Self.segment(), announcedLength: 1000), url: url)
            == .failed("\(url.absoluteString) failed its check, not stored: Content-Length announced 1000 bytes, 752 arrived"))
    }
}
