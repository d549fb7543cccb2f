import Foundation
import HLSPlaylist
import StreamMirroring
import Synchronization
import Testing

/// An upstream the mirror does not control (issue 26): playlists with numbers no Int carries
/// on, names that are not files beside the playlist, the same segment listed twice. The mirror
/// refuses or copes; it never traps, and never stores a file outside the variant's directory.
@Suite struct HostileUpstreamTests {
    let media = URL(string: "http://venue:8080/live/main/720p/index.m3u8")!
    let start = Date(timeIntervalSince1970: 1_790_000_000)

    static func playlist(_ lines: String, target: String = "2") -> String {
        "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:\(target)\n" + lines
    }

    @Test(arguments: ["#EXT-X-MEDIA-SEQUENCE:9223372036854775807\n#EXTINF:2,\n000000.ts\n", "#EXTINF:1e300,\n000000.ts\n",
                      "#EXTINF:2,\n#EXT-X-BYTERANGE:9223372036854775807@9223372036854775807\n000000.ts\n",
                      "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2026-11-21T15:00:00.000Z\",DURATION=nan\n#EXTINF:2,\n000000.ts\n"])
    func aPlaylistWithANumberNoIntCarriesIsAFailedRoundNotATrap(lines: String) async throws {
        let rig = MirrorFollowerTests.Rig()
        rig.upstream.set("/live/main/720p/index.m3u8", playlist: Self.playlist(lines))
        let follower = try rig.follower(media)
        await #expect(throws: (any Error).self) { try await follower.reload() }
        #expect(rig.destination.state.withLock { $0.segments.isEmpty })
    }

    @Test func aTargetDurationNoIntCarriesIsRefusedAndTheWaitsStayBounded() async throws {
        let rig = MirrorFollowerTests.Rig()
        rig.upstream.set("/live/main/720p/index.m3u8", playlist: Self.playlist("#EXTINF:2,\n000000.ts\n", target: "9223372036854775807"))
        let follower = try rig.follower(media)
        await #expect(throws: (any Error).self) { try await follower.reload() }
        for target in [Int.max, Int.min, 0, -1, 86_400] {
            #expect(UpstreamRequests.reloadTimeout(targetDuration: target) <= 182)
            #expect(UpstreamRequests.downloadTimeout(targetDuration: target) <= 240)
            #expect(UpstreamRequests.pollInterval(targetDuration: target) >= 0.5)
        }
        #expect(UpstreamRequests.reloadTimeout(targetDuration: 2) == 8, "a real target duration is used as it is")
    }

    /// A late segment's X-URI becomes a file beside the entries: a path, a URL or an empty name
    /// there is the upstream's to answer for, not the mirror's to store.
    @Test(arguments: ["../../../tmp/evil.ts", "", "http://elsewhere/x.ts", "sub/x.ts", ".hidden.ts", "a?b.ts"])
    func aReplacementThatIsNotAFileNameStopsFollowingAndStoresNothing(uri: String) async throws {
        let rig = MirrorFollowerTests.Rig()
        let replacement = "#EXT-X-DATERANGE:ID=\"replacement-000000.ts\",CLASS=\"com.sideline.replacement\",START-DATE=\"2026-11-21T15:00:00.000Z\","
            + "DURATION=2.000,X-REPLACES=\"000000.ts\",X-URI=\"\(uri)\"\n"
        rig.upstream.set("/live/main/720p/index.m3u8", playlist: Self.playlist("#EXTINF:2,\n000000.ts\n" + replacement))
        rig.serve(1)
        let follower = try rig.follower(media)
        #expect(try await !follower.reload())
        try await follower.fetchMissing()
        #expect(rig.destination.state.withLock { $0.segments.isEmpty }, "nothing fetched from a listing in conflict")
        #expect(rig.events.withLock { $0 }.contains { if case let .conflict(_, reason) = $0 { reason.contains("not a file name") } else { false } })
    }

    /// The same segment listed twice: fetched once, and the listing is what the upstream says.
    @Test func aSegmentListedTwiceIsFetchedOnce() async throws {
        let rig = MirrorFollowerTests.Rig()
        rig.upstream.set("/live/main/720p/index.m3u8", playlist: Self.playlist("#EXTINF:2,\n000000.ts\n#EXTINF:2,\n000000.ts\n#EXTINF:2,\n000001.ts\n"))
        rig.serve(2)
        let follower = try rig.follower(media)
        try await follower.reload()
        try await follower.fetchMissing()
        #expect(rig.upstream.requests.map(\.lastPathComponent) == ["index.m3u8", "000000.ts", "000001.ts"])
        #expect(rig.destination.lastView("720p")?.playlist.segments.map(\.uri) == ["000000.ts", "000000.ts", "000001.ts"])
    }

    @Test func aBlockingReloadAfterTheLargestSequenceNumberDoesNotOverflow() throws {
        let previous = try MediaPlaylist.parse(Self.playlist("#EXT-X-MEDIA-SEQUENCE:\(PlaylistLimits.largestNumber)\n#EXTINF:2,\n000000.ts\n"))
        let next = UpstreamRequests.reload(media, after: previous, canBlockReload: true)
        #expect(next.absoluteString.hasSuffix("_HLS_msn=\(PlaylistLimits.largestNumber + 1)"))
    }

    /// The mirror's segment check over bodies of every shape, with any announced length.
    @Test func theSegmentCheckAnswersEveryBody() {
        let url = media.deletingLastPathComponent().appendingPathComponent("000000.ts")
        for body in [[], [0x47], [UInt8](repeating: 0x47, count: 188 * 3), [UInt8](repeating: 0, count: 188)] as [[UInt8]] {
            for announced in [nil, 0, -1, Int.max, body.count] as [Int?] {
                _ = UpstreamRequests.segmentOutcome(UpstreamAnswer(status: 200, body: body, announcedLength: announced), url: url)
            }
        }
    }
}
