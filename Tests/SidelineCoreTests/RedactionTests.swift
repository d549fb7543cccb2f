import SidelineCore
import Testing

/// What the logs and error messages show of a credential, row by row.
@Suite struct RedactionTests {
    static let headerRows: [(name: String, value: String, shown: String)] = [
        ("Authorization", "Bearer 0123456789abcdef0123", "Bearer <redacted>"),
        ("authorization", "  Basic dXNlcjpwYXNz", "Basic <redacted>"),
        ("Authorization", "0123456789abcdef", "<redacted>"),
        ("Proxy-Authorization", "Bearer x", "Bearer <redacted>"),
        ("Cookie", "session=abc; theme=dark", "<redacted>"),
        ("Set-Cookie", "id=1", "<redacted>"),
        ("X-Ingest-Token", "secret-value", "<redacted>"),
        ("X-API-Key", "k", "<redacted>"),
        // What server.log_headers is for stays readable.
        ("User-Agent", "AppleCoreMedia/1.0", "AppleCoreMedia/1.0"),
        ("CMCD-Session", "sid=\"6e2fb550\"", "sid=\"6e2fb550\""),
        ("X-Playback-Session-Id", "ABC-123", "ABC-123"),
    ]

    @Test(arguments: headerRows) func headerValues(row: (name: String, value: String, shown: String)) {
        #expect(Redaction.header(name: row.name, value: row.value) == row.shown)
    }

    static let urlRows: [(url: String, shown: String)] = [
        ("/live/main/master.m3u8", "/live/main/master.m3u8"),
        ("/access/v1.main.Zm9vYmFy/live/main/master.m3u8", "/access/<redacted>/live/main/master.m3u8"),
        ("/access/s1.main.1700000000..sig/live/main/720p/index.m3u8?_HLS_msn=3", "/access/<redacted>/live/main/720p/index.m3u8?_HLS_msn=3"),
        // Another spelling of the prefix is still a credential.
        ("/%61ccess/abc/live/main/master.m3u8", "/%61ccess/<redacted>/live/main/master.m3u8"),
        ("/./access/abc/live/x", "/./access/<redacted>/live/x"),
        ("/access/abc", "/access/<redacted>"),
        ("/live/main/master.m3u8?token=abc&start=5", "/live/main/master.m3u8?token=<redacted>&start=5"),
        ("/x?access_token=a&sig=b&X-Amz-Signature=c&Key-Pair-Id=d&_HLS_skip=YES", "/x?access_token=<redacted>&sig=<redacted>&X-Amz-Signature=<redacted>&Key-Pair-Id=<redacted>&_HLS_skip=YES"),
        ("/x?%74oken=a#frag", "/x?%74oken=<redacted>#frag"),
        ("https://10.0.0.2:8443/access/cred/live/main/master.m3u8", "https://10.0.0.2:8443/access/<redacted>/live/main/master.m3u8"),
        ("http://user:pass@host/live/main/master.m3u8?token=t", "http://user:<redacted>@host/live/main/master.m3u8?token=<redacted>"),
        ("http://host:8080", "http://host:8080"),
        ("", ""),
    ]

    @Test(arguments: urlRows) func urls(row: (url: String, shown: String)) {
        #expect(Redaction.url(row.url) == row.shown)
    }

    @Test func configValuesUnderSecretKeys() {
        #expect(Redaction.configValue(key: "admin.token", value: "short") == "<redacted>")
        #expect(Redaction.configValue(key: "streams[1].viewer_token", value: "x y") == "<redacted>")
        #expect(Redaction.configValue(key: "access.signing_key", value: "k") == "<redacted>")
        #expect(Redaction.configValue(key: "server.port", value: "99999") == "99999")
        #expect(Redaction.configValue(key: "server.tls.key", value: "/etc/sideline/server.key") == "<redacted>")
    }

    @Test func headerLines() {
        #expect(Redaction.headerLine("Authorization: Bearer abc") == "Authorization: Bearer <redacted>")
        #expect(Redaction.headerLine("User-Agent: curl") == "User-Agent: curl")
        #expect(Redaction.headerLine("no colon token") == "<redacted>")
    }

    static let credentialRows: [(target: String, authorization: String?, carries: Bool)] = [
        ("/live/main/master.m3u8", nil, false),
        ("/live/main/master.m3u8", "Bearer x", true),
        ("/access/abc/live/main/master.m3u8", nil, true),
        ("/%61ccess/abc/live/main/master.m3u8", nil, true),
        ("/./ACCESS/abc/live/x", nil, true),
        ("/live/main/master.m3u8?access=1", nil, false),
        ("/", nil, false),
        ("/admin/streams/main/end", "Bearer wrong", true),
        // Byte by byte as the string version decided: every letter encoded, case mixed,
        // undecodable or half `%`, too long, the segment at the very end, after the query.
        ("/%61%63%63%65%73%73/x", nil, true),
        ("/live/AcCeSs", nil, true),
        ("/%zzccess/x", nil, false),
        ("/accesss/x", nil, false),
        ("/acces/x", nil, false),
        ("/access%", nil, false),
        ("/%61%63%63%65%73%73%73/x", nil, false),
        ("/live/main?x=/access/y", nil, false),
        ("/live/main#/access/y", nil, false),
        ("", nil, false),
    ]

    @Test(arguments: credentialRows) func whichRequestsOfferACredential(row: (target: String, authorization: String?, carries: Bool)) {
        #expect(Redaction.offersCredential(target: row.target, authorization: row.authorization) == row.carries)
    }
}
