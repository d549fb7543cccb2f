import Foundation
import HLSPlaylist
import StreamMirroring
import Testing

/// What this box makes of another box's answers about an angle it serves (issue 35, `boxes`):
/// rows over the listing and the master, every answer hostile.
@Suite struct RemoteAngleReadingTests {
    static func listing(_ json: String, status: Int = 200) -> UpstreamAnswer { UpstreamAnswer(status: status, body: Array(json.utf8)) }
    static let master = UpstreamAnswer(status: 200, body: Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.64001f\"\n360p/index.m3u8\n".utf8))
    static let live = listing(#"{"streams":[{"id":"goal","title":"Goal end","state":"live","more":1}],"locked":[]}"#)

    @Test func aLiveAngleGivesItsTitleStateAndMaster() {
        let said = RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: Self.master, before: nil)
        #expect(said.title == "Goal end" && said.state == "live")
        #expect(said.master?.variants.map(\.uri) == ["360p/index.m3u8"])
        // No master in the next answer: the one said before is still the angle's.
        let later = RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: nil, before: said)
        #expect(later.master == said.master && later == said)
    }

    @Test(arguments: [
        (nil as UpstreamAnswer?, "unreachable"),
        (listing("", status: 503), "unreachable"),
        (listing("not json"), "unreachable"),
        (listing(#"{"streams":[]}"#), "missing"),
        (listing(#"{"streams":[],"locked":[{"id":"goal"}]}"#), "private"),
        (listing(#"{"streams":[{"id":"goal","title":"G","state":"on fire"}]}"#), "unknown"),
        (listing(#"{"streams":[{"id":"goal","title":"G","state":"stalled"}]}"#), "stalled"),
    ])
    func theStateSaysWhatTheBoxAnswered(listing: UpstreamAnswer?, state: String) {
        let said = RemoteAngleReading.reading(stream: "goal", listing: listing, master: nil, before: .init(title: "Kept", state: "live"))
        #expect(said.state == state)
        #expect(said.master == nil, "no master answer: the one held stays")
        if state != "stalled" && state != "unknown" { #expect(said.title == "Kept", "a title is only replaced by the box's own") }
    }

    /// Whether the other box keeps the angle private: listed as locked (asked without a staff
    /// token), or listed with an access prefix on its URLs (asked with one); and what this box
    /// says when a set it serves openly holds such an angle.
    @Test(arguments: [
        (#"{"streams":[{"id":"goal","title":"G","state":"live","urlPrefix":"/access/v1.goal.abc"}]}"#, true),
        (#"{"streams":[{"id":"goal","title":"G","state":"live","urlPrefix":""}]}"#, false),
        (#"{"streams":[{"id":"goal","title":"G","state":"live"}]}"#, false),
        (#"{"streams":[],"locked":[{"id":"goal"}]}"#, true),
    ])
    func aPrivateAngleIsSeenAndAnOpenSetHoldingItIsNamed(json: String, isPrivate: Bool) {
        let said = RemoteAngleReading.reading(stream: "goal", listing: Self.listing(json), master: nil, before: nil)
        #expect(said.isPrivate == isPrivate)
        let mismatch = RemoteAngleReading.privacyMismatch(stream: "goal", said: said, box: "http://10.0.0.12:8080", openSets: ["match": ["wide", "goal"], "other": ["tunnel"]])
        #expect((mismatch != nil) == isPrivate, "\(mismatch ?? "")")
        if let mismatch { #expect(mismatch.contains("set 'match' is open on this box") && mismatch.contains("'goal' is private on http://10.0.0.12:8080")) }
        #expect(RemoteAngleReading.privacyMismatch(stream: "goal", said: said, box: "b", openSets: ["other": ["tunnel"]]) == nil, "no open set holds it")
        // An answer that says nothing keeps what was said.
        #expect(RemoteAngleReading.reading(stream: "goal", listing: nil, master: nil, before: said).isPrivate == isPrivate)
    }

    /// A locked angle asked again with a credential: its own entry gives its title and state;
    /// without that answer it stays `private`. A name the other box lists that this box encodes
    /// too is named; a master at another frame rate than the set's here is named.
    @Test func aLockedAngleReadsItsOwnEntryAndTheVenuesMistakesAreNamed() throws {
        let locked = Self.listing(#"{"streams":[{"id":"wide","title":"W","state":"live"}],"locked":[{"id":"goal"}]}"#)
        #expect(RemoteAngleReading.isLocked("goal", in: locked) == true)
        #expect(RemoteAngleReading.isLocked("wide", in: locked) == false)
        #expect(RemoteAngleReading.isLocked("goal", in: nil) == nil)
        let info = Self.listing(#"{"id":"goal","title":"Goal end","state":"live","urlPrefix":"/access/x"}"#)
        let said = RemoteAngleReading.reading(stream: "goal", listing: locked, info: info, master: Self.master, before: nil)
        #expect(said.title == "Goal end" && said.state == "live" && said.isPrivate && said.master != nil)
        let wrong = Self.listing(#"{"id":"tunnel","title":"Tunnel","state":"live"}"#)
        let unanswered = RemoteAngleReading.reading(stream: "goal", listing: locked, info: wrong, master: nil, before: nil)
        #expect(unanswered.state == "private" && unanswered.title == "", "an entry for another name says nothing of this one")

        #expect(RemoteAngleReading.namesAlsoHere(in: locked, local: ["wide", "goal", "tv"]) == ["goal", "wide"])
        #expect(RemoteAngleReading.namesAlsoHere(in: locked, local: ["tv"]).isEmpty)

        let at25 = UpstreamAnswer(status: 200, body: Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.64001f\",FRAME-RATE=25.000\n360p/index.m3u8\n".utf8))
        let slower = RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: at25, before: nil)
        let mismatch = try #require(RemoteAngleReading.frameRateMismatch(stream: "goal", said: slower, box: "http://b", expected: 30))
        #expect(mismatch.contains("25 fps") && mismatch.contains("30 fps"), "\(mismatch)")
        #expect(RemoteAngleReading.frameRateMismatch(stream: "goal", said: slower, box: "http://b", expected: 25) == nil)
        #expect(RemoteAngleReading.frameRateMismatch(stream: "goal", said: slower, box: "http://b", expected: nil) == nil)
    }

    @Test func aHostileAnswerIsBoundedOrRefused() {
        // JSON escapes: a control character the decoder turns into one in the title.
        let long = String(repeating: "x", count: 5000) + #"\u001b[2J"#
        let said = RemoteAngleReading.reading(stream: "goal", listing: Self.listing(#"{"streams":[{"id":"goal","title":"\#(long)\u0007","state":"live"}]}"#),
                                              master: nil, before: nil)
        #expect(said.title.count == RemoteAngleReading.maximumTitleLength)
        #expect(!said.title.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) })
        let empty = UpstreamAnswer(status: 200, body: Array("#EXTM3U\n".utf8))
        #expect(RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: empty, before: nil).master == nil, "a master with no variant is not taken")
        let garbage = UpstreamAnswer(status: 200, body: Array("<html>".utf8))
        #expect(RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: garbage, before: nil).master == nil)
        let huge = UpstreamAnswer(status: 200, body: Self.master.body + Array(repeating: 0x23, count: RemoteAngleReading.maximumAnswerBytes))
        #expect(RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: huge, before: nil).master == nil)
        let refused = UpstreamAnswer(status: 404, body: Self.master.body)
        #expect(RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: refused, before: nil).master == nil)
    }

    /// A master is taken only as Sideline itself would write it: it is rendered into the set's
    /// master every viewer loads.
    @Test func aMasterKeepsOnlyWhatThisServerWouldWrite() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-SESSION-DATA:DATA-ID="com.evil",VALUE="x"
            #EXT-X-CONTENT-STEERING:SERVER-URI="http://evil/steer.json"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=30.000,VIDEO-RANGE=PQ,PATHWAY-ID="primary"
            360p/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f",VIDEO-RANGE=EVIL
            180p/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f"
            http://10.0.0.3:8080/live/goal/360p/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f"
            a"b/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1 64001f"
            bad-codec/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="a,b,c,d,e"
            many/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=0,CODECS="avc1.64001f"
            free/index.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=80000,CODECS="avc1.64001f",URI="360p/iframes.m3u8"
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=80000,CODECS="avc1.64001f",URI="../other/iframes.m3u8"

            """
        let said = RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: UpstreamAnswer(status: 200, body: Array(text.utf8)), before: nil)
        let master = try #require(said.master)
        #expect(master.variants.map(\.uri) == ["360p/index.m3u8", "180p/index.m3u8"])
        #expect(master.variants.map(\.pathwayID) == [nil, nil])
        #expect(master.variants.map(\.videoRange) == ["PQ", nil])
        #expect(master.iFrameStreams.map(\.uri) == ["360p/iframes.m3u8"])
        #expect(master.sessionData.isEmpty && master.contentSteering == nil)
    }

    @Test func aMasterIsBoundedInRungsAndSize() throws {
        let rungs = (0..<40).map { "#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.64001f\"\nr\($0)/index.m3u8\n" }.joined()
        let many = RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: UpstreamAnswer(status: 200, body: Array(("#EXTM3U\n" + rungs).utf8)), before: nil)
        #expect(many.master?.variants.count == RemoteAngleReading.maximumRungs)
        let padded = "#EXTM3U\n" + String(repeating: "#EXT-X-UNKNOWN-TAG\n", count: RemoteAngleReading.maximumMasterBytes / 19 + 1) + rungs
        #expect(RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: UpstreamAnswer(status: 200, body: Array(padded.utf8)), before: nil).master == nil)
        let none = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nhttp://elsewhere/x.m3u8\n"
        #expect(RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: UpstreamAnswer(status: 200, body: Array(none.utf8)), before: nil).master == nil,
                "no rung of this server's shape: nothing taken")
    }
}
