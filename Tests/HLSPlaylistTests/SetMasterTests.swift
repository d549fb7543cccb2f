import Foundation
import HLSPlaylist
import Testing

@Suite struct SetMasterTests {
    static func master(_ rungs: [(name: String, height: Int, bandwidth: Int, codec: String)], backups: [String] = []) -> MultivariantPlaylist {
        let variants = rungs.map { rung in
            VariantStream(uri: "\(rung.name)/index.m3u8", bandwidth: rung.bandwidth, averageBandwidth: rung.bandwidth * 9 / 10, codecs: [rung.codec, "mp4a.40.2"],
                          resolution: .init(width: rung.height * 16 / 9, height: rung.height), frameRate: 30, videoRange: "SDR", noClosedCaptions: true)
        }
        let backupVariants = backups.compactMap { uri in variants.first.map { var copy = $0; copy.uri = uri; return copy } }
        let iFrames = rungs.map { IFrameStream(uri: "\($0.name)/iframes.m3u8", bandwidth: $0.bandwidth / 10, codecs: [$0.codec], resolution: .init(width: $0.height * 16 / 9, height: $0.height)) }
        return MultivariantPlaylist(variants: variants + backupVariants, iFrameStreams: iFrames, startOffset: -6)
    }

    static let ladder = [("720p", 720, 3_000_000, "avc1.64001f"), ("360p", 360, 1_000_000, "avc1.4d401e")]

    @Test func threeAnglesOfOneLadderAreOneGroupPerRung() throws {
        let set = SetMaster(angles: [
            .init(stream: "wide", title: "Wide", master: Self.master(Self.ladder)),
            .init(stream: "tv", title: "Broadcast", master: Self.master(Self.ladder)),
            .init(stream: "goal", title: "", master: Self.master(Self.ladder)),
        ], title: "Home v Away")
        let expected = """
        #EXTM3U
        #EXT-X-VERSION:4
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-START:TIME-OFFSET=-6.000
        #EXT-X-SESSION-DATA:DATA-ID="com.sideline.title",VALUE="Home v Away"
        #EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="720p",NAME="Wide",DEFAULT=YES,AUTOSELECT=YES,URI="../wide/720p/./index.m3u8"
        #EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="720p",NAME="Broadcast",DEFAULT=NO,AUTOSELECT=NO,URI="../tv/720p/index.m3u8"
        #EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="720p",NAME="goal",DEFAULT=NO,AUTOSELECT=NO,URI="../goal/720p/index.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=3000000,AVERAGE-BANDWIDTH=2700000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30.000,VIDEO-RANGE=SDR,CLOSED-CAPTIONS=NONE,VIDEO="720p"
        ../wide/720p/index.m3u8
        #EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="360p",NAME="Wide",DEFAULT=YES,AUTOSELECT=YES,URI="../wide/360p/./index.m3u8"
        #EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="360p",NAME="Broadcast",DEFAULT=NO,AUTOSELECT=NO,URI="../tv/360p/index.m3u8"
        #EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="360p",NAME="goal",DEFAULT=NO,AUTOSELECT=NO,URI="../goal/360p/index.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=1000000,AVERAGE-BANDWIDTH=900000,CODECS="avc1.4d401e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=30.000,VIDEO-RANGE=SDR,CLOSED-CAPTIONS=NONE,VIDEO="360p"
        ../wide/360p/index.m3u8
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=300000,CODECS="avc1.64001f",RESOLUTION=1280x720,URI="../wide/720p/iframes.m3u8"
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100000,CODECS="avc1.4d401e",RESOLUTION=640x360,URI="../wide/360p/iframes.m3u8"
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=300000,CODECS="avc1.64001f",RESOLUTION=1280x720,URI="../tv/720p/iframes.m3u8"
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100000,CODECS="avc1.4d401e",RESOLUTION=640x360,URI="../tv/360p/iframes.m3u8"
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=300000,CODECS="avc1.64001f",RESOLUTION=1280x720,URI="../goal/720p/iframes.m3u8"
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100000,CODECS="avc1.4d401e",RESOLUTION=640x360,URI="../goal/360p/iframes.m3u8"

        """
        #expect(set.render() == expected)
        // It reads back as a master: the variant streams are the default angle's.
        let parsed = try MultivariantPlaylist.parse(try #require(set.render()))
        #expect(parsed.variants.map(\.uri) == ["../wide/720p/index.m3u8", "../wide/360p/index.m3u8"])
        #expect(parsed.iFrameStreams.count == 6)
    }

    /// An angle without the default's rung plays its rung nearest in height (the higher of two
    /// as near); the variant stream's CODECS and BANDWIDTH cover what it may then play.
    @Test(arguments: [
        (["540p": 540, "180p": 180], "720p", "540p"),
        (["540p": 540, "180p": 180], "360p", "540p"),
        (["480p": 480, "240p": 240], "360p", "480p"),
        (["1080p": 1080, "720p": 720], "360p", "720p"),
        (["720p": 720, "360p": 360], "360p", "360p"),
    ])
    func anAngleWithoutTheRungPlaysItsNearest(other: [String: Int], rung: String, expected: String) throws {
        let otherRungs = other.sorted { $0.value > $1.value }.map { ($0.key, $0.value, 5_000_000, "avc1.640028") }
        let set = SetMaster(angles: [
            .init(stream: "wide", title: "Wide", master: Self.master(Self.ladder)),
            .init(stream: "tv", title: "TV", master: Self.master(otherRungs)),
        ], title: "")
        let text = try #require(set.render())
        #expect(text.contains("#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"\(rung)\",NAME=\"TV\",DEFAULT=NO,AUTOSELECT=NO,URI=\"../tv/\(expected)/index.m3u8\"\n"))
        let variant = try #require(try MultivariantPlaylist.parse(text).variants.first { $0.uri == "../wide/\(rung)/index.m3u8" })
        #expect(variant.bandwidth == 5_000_000)
        #expect(variant.codecs.contains("avc1.640028") && variant.codecs.first != "avc1.640028")
        #expect(!text.contains("com.sideline.title"))
    }

    /// NAMEs are unique in a group (§4.3.4.1.1): a title another angle has, one that cannot be
    /// quoted, or one that is another angle's stream name gives way to the stream's name.
    @Test(arguments: [
        (["Wide", "Wide"], ["Wide", "tv"]),
        (["", "Say \"cheese\""], ["wide", "tv"]),
        (["tv", ""], ["wide", "tv"]),
        (["Behind the goal", "Broadcast"], ["Behind the goal", "Broadcast"]),
    ])
    func namesAreUnique(titles: [String], expected: [String]) throws {
        let set = SetMaster(angles: zip(["wide", "tv"], titles).map { SetMaster.Angle(stream: $0, title: $1, master: Self.master(Self.ladder)) }, title: "")
        let text = try #require(set.render())
        for (stream, name) in zip(["wide", "tv"], expected) {
            #expect(text.contains("GROUP-ID=\"720p\",NAME=\"\(name)\",DEFAULT=\(stream == "wide" ? "YES" : "NO")"))
        }
    }

    @Test func aVariantLimitListsThatRungOnly() throws {
        let set = SetMaster(angles: [.init(stream: "wide", title: "", master: Self.master(Self.ladder)),
                                     .init(stream: "tv", title: "", master: Self.master(Self.ladder))], title: "")
        let text = try #require(set.render(variantLimit: "360p"))
        #expect(!text.contains("720p"))
        #expect(text.contains("../tv/360p/index.m3u8"))
        #expect(set.render(variantLimit: "1080p") == nil)
    }

    @Test func noRungOfTheDefaultAngleIsNoMaster() {
        #expect(SetMaster(angles: [], title: "").render() == nil)
        let empty = MultivariantPlaylist(variants: [])
        #expect(SetMaster(angles: [.init(stream: "wide", title: "", master: empty), .init(stream: "tv", title: "", master: Self.master(Self.ladder))], title: "").render() == nil)
    }

    /// Backups on a mirror (absolute URIs) are another server's live playlists, not this
    /// set's: left out. An angle with no master yet is listed by nobody.
    @Test func backupsAndAnglesWithoutRungsAreLeftOut() throws {
        let set = SetMaster(angles: [.init(stream: "wide", title: "", master: Self.master(Self.ladder, backups: ["http://mirror/live/wide/720p/index.m3u8"])),
                                     .init(stream: "tv", title: "", master: MultivariantPlaylist(variants: []))], title: "")
        let text = try #require(set.render())
        #expect(!text.contains("://"))
        #expect(!text.contains("../tv/"))
        #expect(try MultivariantPlaylist.parse(text).variants.count == 2)
    }

    /// On a box of a redundant pair (issue 35) the set's master carries both pathways, as a
    /// stream's does: this box's groups and variant streams with relative URIs, then the same
    /// on the other box's pathway with that box's URIs in groups of their own; an angle a third
    /// box serves stays relative on both; a VOD window lists this box's alone.
    @Test func aPairsSetMasterCarriesBothPathways() throws {
        let set = SetMaster(angles: [
            .init(stream: "wide", title: "Wide", master: Self.master([("360p", 360, 1_000_000, "avc1.4d401e")])),
            .init(stream: "goal", title: "Goal", master: Self.master([("360p", 360, 900_000, "avc1.4d401e")]), remote: true),
        ], title: "", pathways: .init(own: "standby", other: "primary", otherBase: "http://10.0.0.2:8080", steeringURI: "steering.json"))
        let text = try #require(set.render())
        let parsed = try MultivariantPlaylist.parse(text)
        #expect(parsed.contentSteering == ContentSteering(serverURI: "steering.json", pathwayID: "standby"))
        #expect(parsed.variants.map(\.pathwayID) == ["standby", "primary"])
        #expect(parsed.variants.map(\.uri) == ["../wide/360p/index.m3u8", "http://10.0.0.2:8080/live/wide/360p/index.m3u8"])
        #expect(text.contains(#"GROUP-ID="360p",NAME="Wide",DEFAULT=YES,AUTOSELECT=YES,URI="../wide/360p/./index.m3u8""#))
        #expect(text.contains(#"GROUP-ID="360p-primary",NAME="Wide",DEFAULT=YES,AUTOSELECT=YES,URI="http://10.0.0.2:8080/live/wide/360p/index.m3u8""#))
        #expect(text.contains(#"GROUP-ID="360p-primary",NAME="Goal",DEFAULT=NO,AUTOSELECT=NO,URI="../goal/360p/index.m3u8""#), "another box's angle stays relative")
        #expect(text.contains(#"VIDEO="360p-primary""#))
        #expect(parsed.iFrameStreams.map(\.pathwayID) == ["standby", "standby", "primary", "primary"])
        #expect(parsed.iFrameStreams.map(\.uri).contains("http://10.0.0.2:8080/live/wide/360p/iframes.m3u8"))
        let vod = try MultivariantPlaylist.parse(try #require(set.render(query: "start=0&end=4")))
        #expect(vod.contentSteering == nil && vod.variants.map(\.pathwayID) == [nil])
        // Under /access/<credential>/, the other box's URIs carry it (the origin maps them so).
        let carried = set.mappingURIs { $0.replacingOccurrences(of: "8080/live/", with: "8080/access/c1/live/") }
        let privately = try MultivariantPlaylist.parse(try #require(carried.render()))
        #expect(privately.variants.last?.uri == "http://10.0.0.2:8080/access/c1/live/wide/360p/index.m3u8")
        #expect(privately.variants.first?.uri == "../wide/360p/index.m3u8")
    }
}
