import Foundation
import HLSOrigin
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineTesting
import Testing

/// `/vod/`: the recording so far as VOD, and windows of it, decided from the registry.
@Suite struct VODDecisionTests {
    static let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n720p/index.m3u8\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI=\"720p/iframes.m3u8\"\n"

    func registry(count: Int = 3) -> StreamRegistry {
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        for n in 0..<count {
            registry.apply(.publish(.init(.segment(String(format: "%06d.ts", n), file: .init(path: "/data/main/720p/\(n).ts", size: 188, duration: 2)),
                stream: "main", variant: "720p", playlist: TestPlaylists.live(count: n + 1))))
        }
        registry.apply(.master(stream: "main", .parsed(Self.master)))
        return registry
    }

    func text(_ decision: OriginDecision) -> String? {
        if case let .playlist(playlist, _) = decision { return String(buffer: playlist.plain) }
        return nil
    }

    func status(_ decision: OriginDecision) -> Int? {
        if case let .refuse(refusal) = decision { return refusal.status }
        return nil
    }

    @Test func theMediaPlaylistIsTheRecordingAsVOD() {
        let decision = VODDecision.decide(path: "/vod/main/720p/index.m3u8", query: nil, registry: registry())
        #expect(text(decision) == TestPlaylists.live(count: 3).playlist.vodRendition.render())
        if case let .playlist(_, cache) = decision { #expect(cache == .livePlaylist(maxAge: 1)) }
    }

    @Test func aWindowCutsEveryPlaylistAndTheMasterPassesItOn() throws {
        let registry = registry()
        let media = try #require(text(VODDecision.decide(path: "/vod/main/720p/index.m3u8", query: "start=2&end=4", registry: registry)))
        #expect(try MediaPlaylist.parse(media).segments.map(\.uri) == ["000001.ts"])
        #expect(media.contains("#EXT-X-MEDIA-SEQUENCE:1\n") && media.hasSuffix("#EXT-X-ENDLIST\n"))
        let master = try #require(text(VODDecision.decide(path: "/vod/main/master.m3u8", query: "start=2&end=4&x=1", registry: registry)))
        #expect(master.contains("\n720p/index.m3u8?start=2&end=4\n"))
        #expect(master.contains("URI=\"720p/iframes.m3u8?start=2&end=4\""))
        #expect(text(VODDecision.decide(path: "/vod/main/master.m3u8", query: nil, registry: registry)) == MultivariantPlaylist.parsed(Self.master).render())
        // A second `start=` (or `end=`) is not the window's: only the parsed window goes on, so
        // nothing a client wrote reaches a playlist line (issue 33: a '"' in a second start=
        // closed the I-frame playlist's URI="..." and added attributes of the client's).
        let hostile = #"start=2&end=4&start=x",AUTOSELECT=YES,X=""#
        let injected = try #require(text(VODDecision.decide(path: "/vod/main/master.m3u8", query: hostile, registry: registry)))
        #expect(injected == master, "the master of start=2&end=4, nothing more")
        #expect(!injected.contains("AUTOSELECT") && !injected.contains("start=x"))
        #expect(etag(VODDecision.decide(path: "/vod/main/master.m3u8", query: hostile, registry: registry))?.contains("AUTOSELECT") == false)
        // Percent-encoded dates (the '+' of an offset and the colons).
        let dated = try #require(text(VODDecision.decide(path: "/vod/main/720p/index.m3u8",
                                                         query: "start=2027-01-15T09%3A00%3A02%2B01%3A00", registry: registry)))
        #expect(try MediaPlaylist.parse(dated).segments.map(\.uri) == ["000001.ts", "000002.ts"])
    }

    func etag(_ decision: OriginDecision) -> String? {
        if case let .playlist(playlist, _) = decision { return playlist.etag }
        return nil
    }

    /// A rendition's tag names the playlist version and the window it was made from: the same
    /// for the same pair (whoever rendered it), new for another window or a new publication.
    @Test func renditionsAreTaggedByVersionAndWindow() throws {
        let registry = registry()
        let path = "/vod/main/720p/index.m3u8"
        let first = try #require(etag(VODDecision.decide(path: path, query: "start=2", registry: registry)))
        #expect(etag(VODDecision.decide(path: path, query: "start=2", registry: registry, renditions: VODRenditions())) == first)
        #expect(etag(VODDecision.decide(path: path, query: "start=4", registry: registry)) != first)
        #expect(etag(VODDecision.decide(path: path, query: nil, registry: registry)) != first)
        registry.apply(.publish(.init(.segment("000003.ts", file: .init(path: "/data/main/720p/3.ts", size: 188, duration: 2)),
            stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 4))))
        let grown = VODDecision.decide(path: path, query: "start=2", registry: registry)
        #expect(etag(grown) != first && text(grown)?.contains("000003.ts") == true)
    }

    /// A late segment that replaces entry 1 in the recording: `/live/` keeps the entry players
    /// saw, `/vod/` (media and I-frames) names the real segment, which is served; both
    /// renditions get a new tag.
    @Test func aReplacedEntryIsTheRealSegmentInVODAndUnchangedLive() throws {
        let registry = registry()
        registry.apply(.publish(.init(.segment("000000.ts", file: .init(path: "/data/main/720p/0.ts", size: 188, duration: 2)),
            stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 3),
            iFrames: LiveMediaPlaylist(MediaPlaylist(version: 4, targetDuration: 2, iFramesOnly: true, segments: (0..<3).map {
                MediaSegment(uri: String(format: "%06d.ts", $0), duration: 2, byteRange: .init(length: 376, offset: 0))
            })))))
        let media = "/vod/main/720p/index.m3u8", iFrames = "/vod/main/720p/iframes.m3u8"
        let before = (etag(VODDecision.decide(path: media, query: nil, registry: registry)), etag(VODDecision.decide(path: iFrames, query: nil, registry: registry)))
        var live = TestPlaylists.live(count: 3)
        let liveBefore = live.text
        let start = try #require(live.playlist.segments[1].programDateTime)
        live.appendTrailing(SegmentReplacement(replaces: "000001.ts", uri: "000001-late.ts", duration: 2.01, startDate: start, keyframe: .init(length: 564, offset: 0)).dateRange)
        registry.apply(.publish(.init(.replacement("000001-late.ts", file: .init(path: "/data/main/720p/000001-late.ts", size: 1880, duration: 2.01)),
            stream: "main", variant: "720p", playlist: live)))
        let vod = try MediaPlaylist.parse(try #require(text(VODDecision.decide(path: media, query: nil, registry: registry))))
        #expect(vod.segments.map(\.uri) == ["000000.ts", "000001-late.ts", "000002.ts"])
        #expect(vod.segments[1].duration == 2.01)
        let vodIFrames = try MediaPlaylist.parse(try #require(text(VODDecision.decide(path: iFrames, query: nil, registry: registry))))
        #expect(vodIFrames.segments.map(\.uri) == ["000000.ts", "000001-late.ts", "000002.ts"])
        #expect(vodIFrames.segments[1].byteRange == .init(length: 564, offset: 0))
        #expect(etag(VODDecision.decide(path: media, query: nil, registry: registry)) != before.0)
        #expect(etag(VODDecision.decide(path: iFrames, query: nil, registry: registry)) != before.1, "the I-frame rendition follows the media playlist's replacements")
        #expect(VODDecision.decide(path: "/vod/main/720p/000001-late.ts", query: nil, registry: registry)
            == .segment(.init(path: "/data/main/720p/000001-late.ts", size: 1880, duration: 2.01)))
        let served = try #require(registry.playlistText(stream: "main", variant: "720p"))
        #expect(try MediaPlaylist.parse(served).segments.map(\.uri) == ["000000.ts", "000001.ts", "000002.ts"], "the live playlist keeps what players saw")
        #expect(served.contains(String(liveBefore.split(separator: "\n").last!)))
    }

    @Test func theVODMasterLeavesOutBackupsOnOtherServers() {
        let registry = registry()
        registry.apply(.master(stream: "main", .parsed(Self.master + "#EXT-X-STREAM-INF:BANDWIDTH=1\nhttp://10.0.0.3:8081/live/main/720p/index.m3u8\n")))
        #expect(text(VODDecision.decide(path: "/vod/main/master.m3u8", query: nil, registry: registry)) == MultivariantPlaylist.parsed(Self.master).render())
        #expect(text(VODDecision.decide(path: "/vod/main/master.m3u8", query: "end=4", registry: registry))?.contains("10.0.0.3") == false)
    }

    @Test func segmentsAreTheRecordedFiles() {
        #expect(VODDecision.decide(path: "/vod/main/720p/000001.ts", query: nil, registry: registry()) == .segment(.init(path: "/data/main/720p/1.ts", size: 188, duration: 2)))
    }

    @Test func badRequestsSayWhy() {
        let registry = registry()
        #expect(status(VODDecision.decide(path: "/vod/nope/master.m3u8", query: nil, registry: registry)) == 404)
        #expect(status(VODDecision.decide(path: "/vod/main/1080p/index.m3u8", query: nil, registry: registry)) == 404)
        #expect(status(VODDecision.decide(path: "/vod/main/720p/000009.ts", query: nil, registry: registry)) == 404)
        // A recording lists whole segments: a part path is no VOD resource (it would otherwise
        // fall through to the variant's VOD playlist).
        #expect(status(VODDecision.decide(path: "/vod/main/720p/parts/000000.0.ts", query: nil, registry: registry)) == 404)
        #expect(status(VODDecision.decide(path: "/vod/../etc/passwd", query: nil, registry: registry)) == 404)
        let backwards = VODDecision.decide(path: "/vod/main/720p/index.m3u8", query: "start=4&end=2", registry: registry)
        #expect(status(backwards) == 400)
        if case let .refuse(refusal) = backwards { #expect(refusal.reason.contains("end must be after start")) }
        #expect(status(VODDecision.decide(path: "/vod/main/720p/index.m3u8", query: "start=100", registry: registry)) == 400)
        registry.apply(.phase(stream: "main", .removed))
        #expect(status(VODDecision.decide(path: "/vod/main/master.m3u8", query: nil, registry: registry)) == 410)
    }

    @Test func vodIsServedOverHTTP() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let app = OriginServer.makeApplication(registry: registry(), host: "127.0.0.1", port: 0, logger: logger)
        try await app.test(.live) { client in
            try await client.execute(uri: "/vod/main/720p/index.m3u8?end=3", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/vnd.apple.mpegurl")
                let body = String(buffer: response.body)
                #expect(body.contains("#EXT-X-PLAYLIST-TYPE:VOD\n") && body.hasSuffix("000001.ts\n#EXT-X-ENDLIST\n"))
            }
            try await client.execute(uri: "/vod/main/720p/index.m3u8?start=soon", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("start must be a program date-time"))
            }
        }
    }
}
