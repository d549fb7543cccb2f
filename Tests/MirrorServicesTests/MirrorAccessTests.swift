import MirrorServices
import OriginAccess
import SidelineCore
import Testing

/// Whether a mirror checks its viewers, row by row, and how it learns that its upstream is
/// private: from the credential it reaches the upstream with.
@Suite struct MirrorAccessTests {
    static let privateRules = AccessRules(viewerTokens: ["main": "main-viewer-token-0123"], signingKey: "venue-signing-key-0123")

    static let rows: [(upstreamPrivate: Bool, rules: AccessRules, serveOpenly: Bool, checked: Bool?)] = [
        (false, AccessRules(), false, false),
        (true, privateRules, false, true),
        (false, privateRules, false, true),
        (true, privateRules, true, true),
        (true, AccessRules(), true, false),
        // Private upstream, no rules and nothing said: refused (nil).
        (true, AccessRules(), false, nil),
        // Rules for another stream do not cover this one.
        (true, AccessRules(viewerTokens: ["away": "away-viewer-token-0123"]), false, nil),
    ]

    @Test(arguments: rows) func aPrivateUpstreamIsCheckedOrServedOpenlyOnlyWhenSaid(row: (upstreamPrivate: Bool, rules: AccessRules, serveOpenly: Bool, checked: Bool?)) {
        do {
            let rules = try MirrorAccess.rules(upstreamIsPrivate: row.upstreamPrivate, stream: "main", rules: row.rules, serveOpenly: row.serveOpenly)
            #expect(row.checked == (rules != nil))
            if let rules { #expect(rules.isPrivate("main")) }
        } catch {
            #expect(row.checked == nil, "\(error)")
            #expect(error.description.contains("--serve-openly") && error.description.contains("viewer_token"))
        }
    }

    static let upstreams: [(url: String, headers: [String], isPrivate: Bool)] = [
        ("http://10.0.0.2:8080/live/main/master.m3u8", [], false),
        ("http://10.0.0.2:8080/live/main/master.m3u8", ["User-Agent: mirror"], false),
        ("https://10.0.0.2:8443/access/s1~main~1900000000~~abc/live/main/master.m3u8", [], true),
        ("http://10.0.0.2:8080/live/main/master.m3u8", ["Authorization: Bearer main-viewer-token-0123"], true),
        ("http://10.0.0.2:8080/live/main/master.m3u8", ["Cookie: s=1"], true),
        ("http://10.0.0.2:8080/live/main/master.m3u8?token=abc", [], true),
    ]

    @Test(arguments: upstreams) func theUpstreamIsPrivateWhenReachedWithACredential(row: (url: String, headers: [String], isPrivate: Bool)) throws {
        let upstream = try MirrorUpstream(url: row.url, stream: nil, headers: row.headers, isValidName: { !$0.isEmpty })
        #expect(upstream.isPrivate == row.isPrivate)
        #expect(upstream.stream == "main")
        #expect(!upstream.shown.contains("abc"))
    }

    @Test func badArgumentsAreNamedWithoutTheirSecret() {
        #expect(throws: SidelineStartupError.self) { try MirrorUpstream(url: "ftp://x/access/secret-cred/y", stream: nil, headers: [], isValidName: { _ in true }) }
        do {
            _ = try MirrorUpstream(url: "http://h/live/main/master.m3u8", stream: nil, headers: ["Authorization Bearer secret-token"], isValidName: { _ in true })
            Issue.record("accepted")
        } catch {
            #expect(!error.description.contains("secret-token"), "\(error)")
        }
        do {
            _ = try MirrorUpstream(url: "ftp://x/access/secret-cred/y.m3u8", stream: nil, headers: [], isValidName: { _ in true })
        } catch {
            #expect(!error.description.contains("secret-cred"), "\(error)")
        }
    }
}
