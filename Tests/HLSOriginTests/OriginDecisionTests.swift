import HLSOrigin
import HLSPlaylist
import NIOCore
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineTesting
import Testing

@Suite struct OriginDecisionTests {
    func registry(phase: StreamRegistry.Phase? = nil) -> StreamRegistry {
        let registry = StreamRegistry(clock: { 0 }) // time stands still: these tests are not about staleness
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        if phase != .starting {
            registry.apply(.publish(.init(.segment("000000.ts", file: .init(path: "/data/main/720p/000000.ts", size: 1880)),
                stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 1))))
            registry.apply(.master(stream: "main", .parsed("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n720p/index.m3u8\n")))
        }
        if let phase, phase != .starting { registry.apply(.phase(stream: "main", phase)) }
        return registry
    }

    func decide(_ path: String, _ registry: StreamRegistry) -> OriginDecision {
        OriginDecision.decide(OriginPath.parse(path), registry: registry)
    }

    func playlist(_ decision: OriginDecision) -> String? {
        guard case let .playlist(rendered, _) = decision else { return nil }
        return String(buffer: rendered.plain)
    }

    func cache(_ decision: OriginDecision) -> CachePolicy? {
        guard case let .playlist(_, cache) = decision else { return nil }
        return cache
    }

    @Test func liveStreamServesPlaylistsAndListedSegments() {
        let live = registry()
        #expect(playlist(decide("/live/main/master.m3u8", live)) == MultivariantPlaylist.parsed("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n720p/index.m3u8\n").render())
        #expect(cache(decide("/live/main/master.m3u8", live)) == .livePlaylist(maxAge: 1))
        #expect(playlist(decide("/live/main/720p/index.m3u8", live)) == live.playlistText(stream: "main", variant: "720p"))
        #expect(playlist(decide("/live/main/720p/index.m3u8", live))?.contains("000000.ts") == true)
        #expect(cache(decide("/live/main/720p/index.m3u8", live)) == .livePlaylist(maxAge: 1))
        #expect(decide("/live/main/720p/000000.ts", live) == .segment(.init(path: "/data/main/720p/000000.ts", size: 1880)))
    }

    @Test(arguments: [
        ("/live/other/master.m3u8", 404),            // unknown stream
        ("/live/main/1080p/index.m3u8", 404),        // unknown variant
        ("/live/main/720p/000001.ts", 404),          // not produced yet
        ("/live/main/1080p/000000.ts", 404),         // segment of an unknown variant
        ("/live/main/../../etc/passwd", 404),        // escape attempt
        ("/nothing/here", 404),
        ("/live/main/720p/%00.ts", 400),             // malformed
        ("/live/main/720p/parts/000000.0.ts", 404),  // a part: no stream lists parts yet
    ])
    func refusals(path: String, status: Int) {
        guard case let .refuse(refusal) = decide(path, registry()) else {
            Issue.record("\(path) should be refused")
            return
        }
        #expect(refusal.status == status)
        #expect(refusal.retryAfter == nil)
    }

    /// The registry's narrow lookup (`StreamRegistry.lookUp`): a viewer limited to one variant
    /// gets that variant's master, a limit the ladder lacks is refused with the ladder named,
    /// and an entry published as a gap answers as one, not as unlisted.
    @Test func limitedMastersAndGapEntriesAreDecidedFromTheLookup() {
        let live = registry()
        guard case let .playlist(limited, _) = OriginDecision.decide(OriginPath.parse("/live/main/master.m3u8"), variantLimit: "720p", registry: live) else {
            Issue.record("the limited master should be served")
            return
        }
        #expect(String(buffer: limited.plain).contains("720p/index.m3u8"))
        #expect(OriginDecision.decide(OriginPath.parse("/live/main/master.m3u8"), variantLimit: "1080p", registry: live)
            == .refuse(.noSuchVariant("1080p", of: "main", has: ["720p"])))
        live.apply(.publish(.init(.gap("000001.ts"), stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 2))))
        guard case let .refuse(gap) = decide("/live/main/720p/000001.ts", live) else {
            Issue.record("a gap entry should be refused as a gap")
            return
        }
        #expect(gap.kind == .gapSegment)
        #expect(decide("/live/main/720p/000002.ts", live) == .refuse(Refusal(.segmentNotAvailable, "segment not available")))
    }

    @Test func startingStreamAnswers503WithRetryAfter() {
        let starting = registry(phase: .starting)
        for path in ["/live/main/master.m3u8", "/live/main/720p/index.m3u8"] {
            #expect(decide(path, starting) == .refuse(Refusal(.starting, "stream is starting; no segment yet", retryAfter: 2)))
        }
        #expect(decide("/live/main/720p/000000.ts", starting) == .refuse(Refusal(.segmentNotAvailable, "segment not available")))
    }

    @Test func endedPlaylistsAreLongCacheable() {
        #expect(cache(decide("/live/main/720p/index.m3u8", registry(phase: .ended))) == .endedPlaylist)
    }

    @Test func cacheHeaders() {
        #expect(CachePolicy.livePlaylist(maxAge: 1).headerValue == "public, max-age=1")
        #expect(CachePolicy.segment.headerValue == "public, max-age=31536000, immutable")
        #expect(CachePolicy.transientError.headerValue == "public, max-age=1")
        #expect(CachePolicy.uncached.headerValue == "no-cache")
    }
}
