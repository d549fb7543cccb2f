import PlayerSessions
import SidelineTesting
import Testing

/// CMCD as players send it: hls.js's query parameter, AVPlayer's four headers, and what is
/// malformed; then sessions built from them with a clock the test moves.
@Suite struct CMCDTests {
    /// hls.js (cmcd config, query mode): every key in one percent-encoded `CMCD` parameter,
    /// booleans bare. The example of CTA-5004 §5.
    static let hlsJSQuery = "foo=1&CMCD=bl%3D21300%2Cbr%3D3200%2Cbs%2Ccid%3D%22faec5fc2-ac30-11ea-bb37-0242ac130002%22%2Cd%3D4004%2Cdl%3D18500%2Cmtp%3D48100%2Cnor%3D%22..%252F300kbps%252Ftrack.m4v%22%2Cnrr%3D%2212323-48763%22%2Cot%3Dv%2Cpr%3D1.08%2Crtp%3D12000%2Csf%3Dh%2Csid%3D%226e2fb550-c457-11e9-bb97-0800200c9a66%22%2Cst%3Dl%2Csu%2Ctb%3D6141"

    /// AVPlayer (iOS 18, headers): the same facts in the four CMCD headers.
    static let avPlayerHeaders = [
        "br=3200,d=4004,ot=v,tb=6141",
        "bl=21300,dl=18500,mtp=48100,nor=\"../300kbps/track.m4v\",nrr=\"12323-48763\",su",
        "cid=\"faec5fc2-ac30-11ea-bb37-0242ac130002\",pr=1.08,sf=h,sid=\"6e2fb550-c457-11e9-bb97-0800200c9a66\",st=l",
        "bs,rtp=12000",
    ]

    @Test func hlsJSQueryAndAVPlayerHeadersSayTheSame() throws {
        let query = try #require(try CMCDReport.parse(query: Self.hlsJSQuery, headers: []))
        let headers = try #require(try CMCDReport.parse(query: nil, headers: Self.avPlayerHeaders))
        #expect(query == headers)
        #expect(query.sessionID == "6e2fb550-c457-11e9-bb97-0800200c9a66" && query.contentID == "faec5fc2-ac30-11ea-bb37-0242ac130002")
        #expect(query.bufferLength == 21300 && query.measuredThroughput == 48100 && query.encodedBitrate == 3200)
        #expect(query.bufferStarvation && query.startup && query.objectType == "v" && query.streamType == "l")
        #expect(abs((query.playbackRate ?? 0) - 1.08) < 1e-9)
    }

    @Test(arguments: [
        ("CMCD=bl%3D", [String]()),                       // a key with no value
        ("CMCD=%ZZ", []),                                  // broken percent-encoding
        ("CMCD=sid%3D%22unterminated", []),                // unterminated string
        (nil as String?, ["sid=\"a\",,bl=1"]),             // empty member
        (nil, ["bl=1;"]),                                  // dangling parameter
        (nil, ["BL=1"]),                                   // keys are lower case
    ])
    func malformedCMCDIsAnErrorToCountNotToAnswer(query: String?, headers: [String]) {
        #expect(throws: CMCDReport.Failure.self) { try CMCDReport.parse(query: query, headers: headers) }
    }

    @Test func noCMCDIsNoReportAndUnknownKeysAreIgnored() throws {
        #expect(try CMCDReport.parse(query: "_HLS_msn=5&_HLS_part=1", headers: []) == nil)
        #expect(try CMCDReport.parse(query: nil, headers: []) == nil)
        let odd = try #require(try CMCDReport.parse(query: nil, headers: ["com.example-future=7,bl=\"not a number\",sid=\"x\""]))
        #expect(odd.sessionID == "x" && odd.bufferLength == nil, "a key of the wrong type is skipped like an unknown key")
    }

    func report(_ headers: [String]) throws -> CMCDReport { try #require(try CMCDReport.parse(query: nil, headers: headers)) }

    @Test func sessionsSayWhoIsStallingOnWhichVariantSinceWhen() throws {
        let clock = ManualClock(0)
        let book = PlayerSessionBook(limits: .init(maxSessions: 3, idleSeconds: 30), clock: clock.read)
        // Player A plays 720p fine; player B starves on 540p at t=10 and recovers at t=16.
        book.record(try report(["sid=\"A\",bl=9000,mtp=20000,br=3000,ot=v"]), stream: "home", variant: "720p", userAgent: "hls.js")
        clock.advance(by: 10)
        let began = book.record(try report(["sid=\"B\",bl=0,mtp=900,br=1800,ot=v,bs"]), stream: "home", variant: "540p", userAgent: "AppleCoreMedia")
        #expect(began.stallBegan && began.counts[.init(stream: "home", state: .stalling)] == 1)
        clock.advance(by: 2)
        // A playlist reload without `bs` does not end the stall; the next segment without it does.
        book.record(try report(["sid=\"B\",ot=m"]), stream: "home", variant: "540p", userAgent: nil)
        var b = try #require(book.sessions().sessions.first)
        #expect(b.sid == "B" && b.state == .stalling && b.stallingSince == 10 && b.variant == "540p" && b.measuredThroughputKbps == 900 && b.bufferLengthMs == 0)
        clock.advance(by: 4)
        let ended = book.record(try report(["sid=\"B\",bl=4000,mtp=1500,ot=v"]), stream: "home", variant: "360p", userAgent: nil)
        #expect(!ended.stallBegan && ended.counts[.init(stream: "home", state: .playing)] == 2 && ended.counts[.init(stream: "home", state: .stalling)] == 0)
        b = try #require(book.sessions().sessions.first { $0.sid == "B" })
        #expect(b.state == .playing && b.stallingSince == nil && b.stalls == 1 && b.variant == "360p" && b.userAgent == "AppleCoreMedia" && b.requests == 3)
    }

    @Test func theBookIsBoundedAndForgetsIdleSessions() throws {
        let clock = ManualClock(0)
        let book = PlayerSessionBook(limits: .init(maxSessions: 3, idleSeconds: 30), clock: clock.read)
        for (n, sid) in ["a", "b", "c", "d"].enumerated() {
            if n > 0 { clock.advance(by: 1) }
            book.record(try report(["sid=\"\(sid)\""]), stream: "home", variant: "720p", userAgent: nil)
        }
        #expect(book.sessions().sessions.map(\.sid) == ["b", "c", "d"], "the least recently seen went")
        clock.advance(by: 28.5)  // t = 31.5
        let (left, change) = book.sessions()
        #expect(left.map(\.sid) == ["c", "d"], "b (last seen at 1 s) idle for over 30 s")
        #expect(change.counts[.init(stream: "home", state: .playing)] == 2)
        // Reports without a session ID are not kept.
        book.record(try report(["bl=100"]), stream: "home", variant: nil, userAgent: nil)
        #expect(book.sessions().sessions.count == 2)
    }
}
