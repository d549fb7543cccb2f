import HLSPlaylist
import Testing

struct MultivariantParsingTests {
    @Test func readsBackWhatSidelineWrites() throws {
        let master = MultivariantPlaylist(
            // 4: I-frame playlists need it, and render() writes at least 4 with them.
            version: 4,
            variants: [
                VariantStream(uri: "720p/index.m3u8", bandwidth: 3_300_000, averageBandwidth: 2_900_000, codecs: ["avc1.64001f", "mp4a.40.2"],
                              resolution: .init(width: 1280, height: 720), frameRate: 25, noClosedCaptions: true),
                VariantStream(uri: "360p/index.m3u8", bandwidth: 900_000, codecs: ["avc1.4d401e", "mp4a.40.2"], resolution: .init(width: 640, height: 360)),
            ],
            iFrameStreams: [IFrameStream(uri: "720p/iframes.m3u8", bandwidth: 400_000, codecs: ["avc1.64001f"], resolution: .init(width: 1280, height: 720))],
            sessionData: [SessionData(dataID: "com.sideline.title", value: "Home v Away, first half")],
            startOffset: -12
        )
        #expect(try MultivariantPlaylist.parse(master.render()) == master)
    }

    @Test func sayWhichLineIsWrong() {
        #expect(throws: PlaylistParseError.missingHeader) { try MultivariantPlaylist.parse("720p/index.m3u8\n") }
        #expect(throws: PlaylistParseError.uriWithoutStreamInf(uri: "720p/index.m3u8", line: 2)) { try MultivariantPlaylist.parse("#EXTM3U\n720p/index.m3u8\n") }
        #expect(throws: PlaylistParseError.streamInfWithoutURI(line: 3)) { try MultivariantPlaylist.parse("#EXTM3U\n\n#EXT-X-STREAM-INF:BANDWIDTH=1\n") }
        #expect(throws: PlaylistParseError.invalidValue(tag: "#EXT-X-STREAM-INF", value: "BANDWIDTH=(missing)", line: 2)) {
            try MultivariantPlaylist.parse("#EXTM3U\n#EXT-X-STREAM-INF:CODECS=\"avc1.64001f\"\na/index.m3u8\n")
        }
        #expect(throws: PlaylistParseError.invalidValue(tag: "#EXT-X-I-FRAME-STREAM-INF", value: "BANDWIDTH=5", line: 2)) {
            try MultivariantPlaylist.parse("#EXTM3U\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=5\n")
        }
    }
}
