import HLSPlaylist
import Testing

@Suite struct IFramePlaylistTests {
    @Test func iFramePlaylistMatchesGoldenAndRoundTrips() throws {
        let playlist = MediaPlaylist(version: 4, targetDuration: 2, iFramesOnly: true, segments: [
            MediaSegment(uri: "000000.ts", duration: 2, byteRange: .init(length: 71440, offset: 0)),
            MediaSegment(uri: "000001.ts", duration: 2, byteRange: .init(length: 69560, offset: 0)),
        ], endList: true)
        let text = try golden("iframes.m3u8")
        #expect(playlist.render() == text)
        #expect(try MediaPlaylist.parse(text) == playlist)
    }

    @Test func byteRangeWithoutOffsetFollowsThePreviousRangeOfTheSameURI() throws {
        let parsed = try MediaPlaylist.parse("""
        #EXTM3U
        #EXT-X-VERSION:4
        #EXT-X-TARGETDURATION:2
        #EXTINF:1,
        #EXT-X-BYTERANGE:100@50
        a.ts
        #EXTINF:1,
        #EXT-X-BYTERANGE:200
        a.ts
        #EXTINF:1,
        #EXT-X-BYTERANGE:10
        b.ts

        """)
        #expect(parsed.segments.map(\.byteRange) == [.init(length: 100, offset: 50), .init(length: 200, offset: 150), .init(length: 10, offset: 0)])
    }

    @Test func badByteRangesAreRejected() {
        #expect(throws: PlaylistParseError.invalidValue(tag: "#EXT-X-BYTERANGE", value: "x@1", line: 3)) {
            try MediaPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:x@1\n")
        }
    }

    @Test func fullMasterMatchesGolden() throws {
        let r720 = VariantStream.Resolution(width: 1280, height: 720), r360 = VariantStream.Resolution(width: 640, height: 360)
        let playlist = MultivariantPlaylist(
            variants: [
                VariantStream(uri: "720p/index.m3u8", bandwidth: 3_770_801, averageBandwidth: 3_440_801, codecs: ["avc1.64001f", "mp4a.40.2"],
                              resolution: r720, frameRate: 30, videoRange: "SDR", noClosedCaptions: true),
                VariantStream(uri: "360p/index.m3u8", bandwidth: 1_100_000, averageBandwidth: 1_000_000, codecs: ["avc1.4d401e", "mp4a.40.2"],
                              resolution: r360, frameRate: 30, videoRange: "SDR", noClosedCaptions: true),
            ],
            iFrameStreams: [
                IFrameStream(uri: "720p/iframes.m3u8", bandwidth: 3_355_933, codecs: ["avc1.64001f"], resolution: r720),
                IFrameStream(uri: "360p/iframes.m3u8", bandwidth: 901, codecs: ["avc1.4d401e"], resolution: r360),
            ],
            sessionData: [
                SessionData(dataID: "com.sideline.title", value: "Final: North v South"),
                SessionData(dataID: "com.sideline.keywords", value: "football, final"),
                SessionData(dataID: "com.sideline.description", value: "a \"quoted\" value cannot be rendered"),
            ],
            startOffset: -6
        )
        #expect(playlist.render() == (try golden("master-full.m3u8")))
    }

    @Test func masterListsIFrameStreams() throws {
        let playlist = MultivariantPlaylist(
            variants: [VariantStream(uri: "720p/index.m3u8", bandwidth: 3_770_801, averageBandwidth: 3_440_801,
                                     codecs: ["avc1.64001f", "mp4a.40.2"], resolution: .init(width: 1280, height: 720), frameRate: 30)],
            iFrameStreams: [IFrameStream(uri: "720p/iframes.m3u8", bandwidth: 3_355_933, codecs: ["avc1.64001f"], resolution: .init(width: 1280, height: 720))]
        )
        #expect(playlist.render() == (try golden("master-with-iframes.m3u8")))
    }
}
