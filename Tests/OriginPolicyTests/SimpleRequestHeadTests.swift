import OriginPolicy
import Testing

/// What the origin answers straight from the socket's bytes, and what it hands to the full
/// decoder. Handing on is always safe (the decoder answers as before), so every row that is
/// not a plain player request must hand on, and every player request must be complete.
@Suite struct SimpleRequestHeadTests {
    static func scan(_ text: String) -> SimpleRequestHead.Scan {
        Array(text.utf8).withUnsafeBytes { SimpleRequestHead.scan($0) }
    }

    @Test func aPlayersRequestIsReadWhole() {
        let text = "GET /live/main/720p/index.m3u8?_HLS_msn=12&_HLS_skip=YES HTTP/1.1\r\nHost: 10.0.0.2:8080\r\nUser-Agent: Lavf/59.27.100\r\n"
            + "Accept:   */*  \r\nConnection: Keep-Alive\r\nAccept-Encoding:\tgzip\t\r\nX-Empty:\r\n\r\n"
        let expected = SimpleRequestHead(method: .get, target: "/live/main/720p/index.m3u8?_HLS_msn=12&_HLS_skip=YES", fields: [
            .init(name: "Host", value: "10.0.0.2:8080"), .init(name: "User-Agent", value: "Lavf/59.27.100"), .init(name: "Accept", value: "*/*"),
            .init(name: "Connection", value: "Keep-Alive"), .init(name: "Accept-Encoding", value: "gzip"), .init(name: "X-Empty", value: ""),
        ])
        #expect(Self.scan(text) == .complete(expected, length: text.utf8.count))
    }

    @Test func onlyTheFirstRequestIsClaimedWhenSeveralArrive() {
        let first = "HEAD /live/main/720p/000001.ts HTTP/1.1\r\nRange: bytes=0-187\r\n\r\n"
        #expect(Self.scan(first + "GET / HTTP/1.1\r\n\r\n") == .complete(SimpleRequestHead(method: .head, target: "/live/main/720p/000001.ts",
                                                                                      fields: [.init(name: "Range", value: "bytes=0-187")]), length: first.utf8.count))
        #expect(Self.scan("GET / HTTP/1.1\r\n\r\n") == .complete(SimpleRequestHead(method: .get, target: "/", fields: []), length: 18))
    }

    @Test(arguments: ["", "G", "GE", "GET", "GET ", "HEA", "HEAD /live", "GET /live/ HTTP/1.1\r\n", "GET /live/ HTTP/1.1\r\nHost: a\r\n\r"])
    func aHeadNotYetWholeWaits(_ text: String) {
        #expect(Self.scan(text) == .incomplete)
    }

    /// Each of these is valid HTTP (or a request the decoder must refuse); none is simple.
    @Test(arguments: [
        "POST /ingest/roof/360p/000001.ts HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc",  // a body
        "GET /live/ HTTP/1.1\r\nContent-Length: 0\r\n\r\n",                              // says it has a body
        "GET /live/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
        "GET /live/ HTTP/1.1\r\nConnection: close\r\n\r\n",                             // ends the connection
        "GET /live/ HTTP/1.1\r\nProxy-Connection: close\r\n\r\n",                       // so does this, to NIO's decoder
        "GET /live/ HTTP/1.1\r\nconnection: keep-alive, Upgrade\r\nUpgrade: h2c\r\n\r\n",
        "GET /live/ HTTP/1.1\r\nExpect: 100-continue\r\n\r\n",
        "GET /live/ HTTP/1.0\r\n\r\n",                                                   // other versions
        "GET /live/ HTTP/2.0\r\n\r\n",
        "get /live/ HTTP/1.1\r\n\r\n",                                                   // methods are case-sensitive
        "OPTIONS * HTTP/1.1\r\n\r\n",
        "DELETE /api/markers/1 HTTP/1.1\r\n\r\n",
        "GET http://host/live/ HTTP/1.1\r\n\r\n",                                        // absolute form
        "GET  /live/ HTTP/1.1\r\n\r\n",                                                  // two spaces
        "GET /live/\u{7F} HTTP/1.1\r\n\r\n",
        "GET /live/é HTTP/1.1\r\n\r\n",                                                 // raw non-ASCII target
        "GET /live/ HTTP/1.1\r\nX: caf\u{E9}\r\n\r\n",                                   // obs-text value
        "GET /live/ HTTP/1.1\r\nX: a\u{0}b\r\n\r\n",                                     // a control byte
        "GET /live/ HTTP/1.1\r\nX: a\rb\r\n\r\n",                                        // a bare CR
        "GET /live/ HTTP/1.1\r\n folded: value\r\n\r\n",                                 // obs-fold
        "GET /live/ HTTP/1.1\r\nBad Name: value\r\n\r\n",
        "GET /live/ HTTP/1.1\r\n: value\r\n\r\n",
        "GET /live/ HTTP/1.1\r\nNoColon\r\n\r\n",
        "\r\nGET /live/ HTTP/1.1\r\n\r\n",                                               // a leading empty line
        "GET /live/ HTTP/1.1\n\n",                                                        // bare LF
        "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    ])
    func anythingElseIsHandedOn(_ text: String) {
        #expect(Self.scan(text) == .handOn)
    }

    @Test func boundsHandTheRequestOn() {
        let fields = (0...SimpleRequestHead.maxFields).map { "X-\($0): v\r\n" }.joined()
        #expect(Self.scan("GET / HTTP/1.1\r\n" + fields + "\r\n") == .handOn)
        let fitting = (0..<SimpleRequestHead.maxFields).map { "X-\($0): v\r\n" }.joined()
        if case .complete = Self.scan("GET / HTTP/1.1\r\n" + fitting + "\r\n") {} else { Issue.record("\(SimpleRequestHead.maxFields) fields are within the bound") }
        // A head that never ends: waited for up to the bound, then handed on (the decoder's limit decides).
        let long = "GET /" + String(repeating: "a", count: SimpleRequestHead.maxLength)
        #expect(Self.scan(String(long.prefix(SimpleRequestHead.maxLength - 1))) == .incomplete)
        #expect(Self.scan(long) == .handOn)
    }
}
