import Foundation
import HLSPlaylist
import Testing

@Suite struct MediaPlaylistRenderingTests {
    static let segments = [
        MediaSegment(uri: "000000.ts", duration: 2.0, programDateTime: date("2026-11-21T19:00:00.000Z")),
        MediaSegment(uri: "000001.ts", duration: 2.002, programDateTime: date("2026-11-21T19:00:02.000Z")),
        MediaSegment(uri: "000002.ts", duration: 1.9666666, programDateTime: date("2026-11-21T19:05:41.250Z"), discontinuity: true),
    ]

    @Test func liveEventPlaylistMatchesGolden() throws {
        let playlist = MediaPlaylist(targetDuration: 2, segments: Self.segments)
        #expect(playlist.render() == (try golden("event-live.m3u8")))
    }

    @Test func endedEventPlaylistMatchesGolden() throws {
        let playlist = MediaPlaylist(targetDuration: 2, segments: Self.segments, endList: true)
        #expect(playlist.render() == (try golden("event-ended.m3u8")))
    }

    @Test func appendOnlyRenderingEqualsFullRendering() throws {
        var live = LiveMediaPlaylist(MediaPlaylist(targetDuration: 2))
        var versions: Set<Int> = [live.version]
        for segment in Self.segments {
            live.append(segment)
            versions.insert(live.version)
            #expect(live.text == live.playlist.render())
        }
        #expect(live.text == (try golden("event-live.m3u8")))
        live.end()
        #expect(live.text == (try golden("event-ended.m3u8")))
        #expect(versions.count == 4, "every append makes a new version")
    }

    @Test func gapSegmentsRenderTheGapTag() {
        let text = MediaPlaylist.renderLines(for: MediaSegment(uri: "000009.ts", duration: 2, gap: true))
        #expect(text == "#EXTINF:2.000000,\n#EXT-X-GAP\n000009.ts\n")
    }

    @Test func playlistsRoundTripThroughTheParser() throws {
        for name in ["event-live.m3u8", "event-ended.m3u8"] {
            let text = try golden(name)
            let parsed = try MediaPlaylist.parse(text)
            #expect(parsed.render() == text, "\(name) should survive text -> model -> text")
        }
        let parsed = try MediaPlaylist.parse(try golden("event-live.m3u8"))
        #expect(parsed.segments.count == 3)
        #expect(parsed.segments[2].discontinuity)
        #expect(parsed.playlistType == .event)
        #expect(parsed.targetDuration == 2)
    }

    @Test func targetDurationBoundIsCheckedPerSegment() {
        let playlist = MediaPlaylist(targetDuration: 2, segments: [
            MediaSegment(uri: "a.ts", duration: 2.49),
            MediaSegment(uri: "b.ts", duration: 2.5),
        ])
        // 2.5 rounds to 3 (§4.3.3.1 rounds to the nearest integer), which exceeds 2.
        #expect(playlist.segmentsExceedingTargetDuration.map(\.uri) == ["b.ts"])
    }
}
