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

    /// Content Steering (issue 35): the steering manifest's URI, the initial pathway, and each
    /// variant's pathway, written and read back; a pathway that is not a legal ID is refused.
    @Test func pathwaysAndTheSteeringManifestReadBack() throws {
        let own = VariantStream(uri: "180p/index.m3u8", bandwidth: 300_000, codecs: ["avc1.42c00d"], resolution: .init(width: 320, height: 180), pathwayID: "primary")
        var other = own
        other.uri = "http://10.0.0.3:8080/live/main/180p/index.m3u8"
        other.pathwayID = "standby"
        let master = MultivariantPlaylist(variants: [own, other], contentSteering: ContentSteering(serverURI: "steering.json", pathwayID: "primary"))
        let text = master.render()
        #expect(text.contains("#EXT-X-CONTENT-STEERING:SERVER-URI=\"steering.json\",PATHWAY-ID=\"primary\"\n"))
        #expect(text.contains("CODECS=\"avc1.42c00d\",RESOLUTION=320x180,PATHWAY-ID=\"standby\"\nhttp://10.0.0.3:8080/"))
        #expect(try MultivariantPlaylist.parse(text) == master)
        #expect(ContentSteering.isPathwayID("cdn-a.1_b") && !ContentSteering.isPathwayID("") && !ContentSteering.isPathwayID("a b") && !ContentSteering.isPathwayID("é"))
        #expect(throws: PlaylistParseError.self) { try MultivariantPlaylist.parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,PATHWAY-ID=\"a/b\"\na/index.m3u8\n") }
        #expect(throws: PlaylistParseError.self) { try MultivariantPlaylist.parse("#EXTM3U\n#EXT-X-CONTENT-STEERING:PATHWAY-ID=\"a\"\n") }
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

@Suite struct ServerControlAndCodecsParsingTests {
    @Test func aLivePlaylistsServerControlIsReadWithIt() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=12,CAN-SKIP-DATERANGES=YES,CAN-BLOCK-RELOAD=YES,HOLD-BACK=6,X-OTHER=1\n#EXTINF:2.000000,\n000000.ts\n"
        let (playlist, control) = try MediaPlaylist.parseWithServerControl(text)
        #expect(playlist.segments.count == 1)
        #expect(control == ServerControl(canSkipUntil: 12, canSkipDateRanges: true, canBlockReload: true, holdBack: 6), "HOLD-BACK read; an attribute the draft does not define ignored")
        #expect(try MediaPlaylist.parseWithServerControl("#EXTM3U\n#EXT-X-TARGETDURATION:2\n").serverControl == nil)
        // What the origin renders, read back.
        let rendered = try #require(ServerControl(canSkipUntil: 12, canBlockReload: true).render())
        #expect(ServerControl.parse(attributes: String(rendered.dropFirst("#EXT-X-SERVER-CONTROL:".count).dropLast())) == ServerControl(canSkipUntil: 12, canBlockReload: true))
    }

    @Test func aMalformedServerControlNamesItsLine() {
        #expect(throws: PlaylistParseError.invalidValue(tag: "#EXT-X-SERVER-CONTROL", value: "CAN-BLOCK-RELOAD=MAYBE", line: 3)) {
            try MediaPlaylist.parseWithServerControl("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=MAYBE\n")
        }
        #expect(ServerControl.parse(attributes: "CAN-SKIP-UNTIL=-1") == nil)
    }

    @Test func whetherAMasterCarriesAudioComesFromItsCodecs() throws {
        func master(_ codecs: String?) throws -> MultivariantPlaylist {
            let attribute = codecs.map { ",CODECS=\"\($0)\"" } ?? ""
            return try MultivariantPlaylist.parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\(attribute)\n720p/index.m3u8\n")
        }
        #expect(try master("avc1.64001f,mp4a.40.2").carriesAudio == true)
        #expect(try master("avc1.64001f").carriesAudio == false)
        #expect(try master("avc1.64001f,ec-3").carriesAudio == true)
        #expect(try master(nil).carriesAudio == nil, "no CODECS: nothing to say")
    }
}
