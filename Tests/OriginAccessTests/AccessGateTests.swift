import Foundation
import OriginAccess
import OriginPolicy
import Testing

/// The gate's table, row by row: which requests pass, which get 401 and which 403, for
/// players' paths, VOD, clips and the page's API, by credential form.
@Suite struct AccessGateTests {
    static let now = 1_800_000_000.0
    static let rules = AccessRules(viewerTokens: ["home": "home-viewer-secret", "medical": "medical-viewer-secret"],
                                   signingKey: "venue-signing-key", staffTokens: ["analyst-secret", "admin-secret"])
    let gate = AccessGate(rules: rules)

    static func signed(_ stream: String, expires: Int = Int(now) + 60, variant: String? = nil, key: String = "venue-signing-key") -> String {
        AccessRules(signingKey: key).signedCredential(for: stream, expires: expires, variant: variant)!
    }

    static func viewer(_ stream: String, token: String) -> String {
        AccessRules(viewerTokens: [stream: token]).viewerCredential(for: stream, now: now)!
    }

    enum Expected: Equatable { case pass, unauthorized, forbidden, malformed }

    func outcome(_ target: String, authorization: String? = nil, now: Double = AccessGateTests.now) -> Expected {
        switch gate.check(target: target, authorization: authorization, now: now) {
        case .pass: return .pass
        case let .refuse(refusal):
            switch refusal.kind {
            case .unauthorized: return .unauthorized
            case .forbidden: return .forbidden
            case .malformedRequest: return .malformed
            default: Issue.record("unexpected refusal \(refusal)"); return .malformed
            }
        }
    }

    @Test(arguments: [
        // Open streams and paths that are not footage pass with nothing.
        ("/live/away/master.m3u8", nil as String?, Expected.pass),
        ("/live/away/720p/000001.ts", nil, .pass),
        ("/", nil, .pass),
        ("/page.js", nil, .pass),
        ("/api/streams", nil, .pass),
        ("/healthz", nil, .pass),
        ("/metrics", nil, .pass),
        // A private stream with nothing: 401, on every kind of resource.
        ("/live/home/master.m3u8", nil, .unauthorized),
        ("/live/home/720p/index.m3u8", nil, .unauthorized),
        ("/live/home/720p/iframes.m3u8", nil, .unauthorized),
        ("/live/home/720p/000001.ts", nil, .unauthorized),
        ("/vod/home/master.m3u8?start=0&end=30", nil, .unauthorized),
        ("/vod/home/720p/000001.ts", nil, .unauthorized),
        ("/api/streams/home/clip.mp4?start=0&end=10", nil, .unauthorized),
        ("/api/streams/home/markers", nil, .unauthorized),
        // Ways around the name that the routes would still read as 'home'.
        ("/live/h%6fme/master.m3u8", nil, .unauthorized),
        ("//live//home/master.m3u8", nil, .unauthorized),
        ("/api/streams//home/markers", nil, .unauthorized),
        ("/live/h%zzome/master.m3u8", nil, .malformed),
        // Bearer tokens: the stream's own, staff; another stream's is 403, a wrong one 401.
        ("/live/home/master.m3u8", "Bearer home-viewer-secret", .pass),
        ("/live/home/720p/000001.ts", "Bearer analyst-secret", .pass),
        ("/api/streams/home/markers", "Bearer admin-secret", .pass),
        ("/live/home/master.m3u8", "Bearer medical-viewer-secret", .forbidden),
        ("/live/home/master.m3u8", "Bearer guess", .unauthorized),
        ("/live/home/master.m3u8", "Basic aG9tZQ==", .unauthorized),
        ("/live/away/master.m3u8", "Bearer guess", .pass),
    ])
    func requestsWithoutAPathCredential(target: String, authorization: String?, expected: Expected) {
        #expect(outcome(target, authorization: authorization) == expected)
    }

    @Test func viewerCredentialsCoverTheirStreamOnly() {
        let home = Self.viewer("home", token: "home-viewer-secret")
        #expect(outcome("/access/\(home)/live/home/master.m3u8") == .pass)
        #expect(outcome("/access/\(home)/live/home/540p/000123.ts") == .pass)
        #expect(outcome("/access/\(home)/vod/home/540p/index.m3u8") == .pass)
        #expect(outcome("/access/\(home)/api/streams/home/clip.mp4?start=1&end=2") == .pass)
        // Another stream: 403, and the reason names both.
        #expect(outcome("/access/\(home)/live/medical/master.m3u8") == .forbidden)
        // Made with a token the stream no longer has (changed in the config): 401.
        #expect(outcome("/access/\(Self.viewer("home", token: "old-token"))/live/home/master.m3u8") == .unauthorized)
        // A credential of a stream that is not private at all: nothing can verify it.
        #expect(outcome("/access/\(Self.viewer("away", token: "x"))/live/home/master.m3u8") == .unauthorized)
        // On an open stream, a prefix is taken off and nothing else asked.
        #expect(outcome("/access/\(home)/live/away/master.m3u8") == .pass)
    }

    @Test func signedCredentialsCheckKeyStreamExpiryAndVariant() {
        #expect(outcome("/access/\(Self.signed("home"))/live/home/master.m3u8") == .pass)
        #expect(outcome("/access/\(Self.signed("home", key: "other-key"))/live/home/master.m3u8") == .unauthorized)
        #expect(outcome("/access/\(Self.signed("medical"))/live/home/master.m3u8") == .forbidden)
        #expect(outcome("/access/\(Self.signed("home", expires: Int(Self.now) - 1))/live/home/master.m3u8") == .forbidden)
        // Expires at exactly now: no longer valid.
        #expect(outcome("/access/\(Self.signed("home", expires: Int(Self.now)))/live/home/master.m3u8") == .forbidden)
        let only540 = Self.signed("home", variant: "540p")
        #expect(outcome("/access/\(only540)/live/home/540p/index.m3u8") == .pass)
        #expect(outcome("/access/\(only540)/live/home/540p/000007.ts") == .pass)
        #expect(outcome("/access/\(only540)/live/home/720p/index.m3u8") == .forbidden)
        #expect(outcome("/access/\(only540)/live/home/720p/000007.ts") == .forbidden)
        // Parts (Low-Latency HLS) sit one folder deeper: still the variant's.
        #expect(outcome("/access/\(only540)/live/home/540p/parts/000007.2.ts") == .pass)
        #expect(outcome("/access/\(only540)/live/home/720p/parts/000007.2.ts") == .forbidden)
        #expect(gate.check(target: "/access/\(only540)/live/home/master.m3u8", authorization: nil, now: Self.now)
            == .pass(target: "/live/home/master.m3u8", variant: "540p"))
        // Signed URLs off on the server: 401 that says so.
        let unsigned = AccessGate(rules: AccessRules(viewerTokens: ["home": "t"]))
        guard case let .refuse(refusal) = unsigned.check(target: "/access/\(Self.signed("home"))/live/home/master.m3u8", authorization: nil, now: Self.now) else {
            Issue.record("a signed URL passed a server without a signing key"); return
        }
        #expect(refusal.kind == .unauthorized && refusal.reason.contains("access.signing_key"))
    }

    @Test(arguments: [
        "garbage", "v1~home", "v1~home~short", "s1~home~notanumber~~AAAAAAAAAAAAAAAAAAAAAA", "s1~home~1~~AAAAAAAAAAAAAAAAAAAAAA~extra",
        "v1~..~AAAAAAAAAAAAAAAAAAAAAA", "x1~home~AAAAAAAAAAAAAAAAAAAAAA", "s1~home~-5~~AAAAAAAAAAAAAAAAAAAAAA",
    ])
    func malformedCredentialsAreUnauthorized(credential: String) {
        #expect(outcome("/access/\(credential)/live/home/master.m3u8") == .unauthorized)
    }

    /// An empty credential is a repeated slash: `/access//live/home/...` is
    /// `/access/live/home/...`, whose "credential" is `live` and whose rest, `/home/...`,
    /// names no stream's footage (the routes answer 404). It never reaches home's files.
    @Test func anEmptyCredentialIsARepeatedSlash() {
        #expect(gate.check(target: "/access//live/home/master.m3u8", authorization: nil, now: Self.now) == .pass(target: "/home/master.m3u8", variant: nil))
    }

    @Test func altering_any_field_breaks_the_mac() {
        let good = Self.signed("home", expires: Int(Self.now) + 3600, variant: "540p")
        #expect(outcome("/access/\(good)/live/home/540p/index.m3u8") == .pass)
        let later = good.replacingFirst(String(Int(Self.now) + 3600), with: String(Int(Self.now) + 7200))
        #expect(outcome("/access/\(later)/live/home/540p/index.m3u8") == .unauthorized)
        let anyVariant = good.replacingFirst("~540p~", with: "~~")
        #expect(outcome("/access/\(anyVariant)/live/home/720p/index.m3u8") == .unauthorized)
    }

    /// The gate remembers credentials whose MAC it checked; everything else is checked on every
    /// request, and a credential one character away from a remembered one is not remembered.
    @Test func aRememberedCredentialIsStillCheckedForStreamExpiryAndVariant() {
        let credential = Self.signed("home", expires: Int(Self.now) + 60, variant: "540p")
        #expect(outcome("/access/\(credential)/live/home/540p/index.m3u8") == .pass)
        #expect(outcome("/access/\(credential)/live/home/540p/000001.ts") == .pass)
        #expect(outcome("/access/\(credential)/live/home/540p/000001.ts", now: Self.now + 61) == .forbidden)
        #expect(outcome("/access/\(credential)/live/medical/540p/000001.ts") == .forbidden)
        #expect(outcome("/access/\(credential)/live/home/720p/000001.ts") == .forbidden)
        let forged = String(credential.dropLast()) + (credential.last == "A" ? "B" : "A")
        #expect(outcome("/access/\(forged)/live/home/540p/000001.ts") == .unauthorized)
    }

    @Test func thePrefixIsTakenOffTheTarget() {
        let home = Self.viewer("home", token: "home-viewer-secret")
        #expect(gate.check(target: "/access/\(home)/live/home/720p/index.m3u8?_HLS_msn=5", authorization: nil, now: Self.now)
            == .pass(target: "/live/home/720p/index.m3u8?_HLS_msn=5", variant: nil))
        #expect(gate.check(target: "/live/away/master.m3u8", authorization: nil, now: Self.now) == .pass(target: nil, variant: nil))
        // With access control off, a prefixed URL still works (the prefix is taken off).
        let off = AccessGate(rules: AccessRules())
        #expect(off.check(target: "/access/\(home)/live/home/master.m3u8", authorization: nil, now: Self.now) == .pass(target: "/live/home/master.m3u8", variant: nil))
        #expect(off.check(target: "/access/\(home)", authorization: nil, now: Self.now) == .pass(target: "/", variant: nil))
    }

    @Test func refusalsAreNeverCachedAndNeverCarryASecret() {
        let targets = ["/live/home/master.m3u8", "/access/\(Self.signed("medical"))/live/home/master.m3u8",
                       "/access/\(Self.signed("home", expires: 1))/live/home/master.m3u8"]
        for target in targets {
            for authorization in [nil, "Bearer medical-viewer-secret", "Bearer wrong"] {
                guard case let .refuse(refusal) = gate.check(target: target, authorization: authorization, now: Self.now) else {
                    Issue.record("\(target) passed"); continue
                }
                #expect(refusal.cache == .noStore)
                #expect(refusal.realm == (refusal.kind == .unauthorized ? AccessGate.realm : nil))
                for secret in ["home-viewer-secret", "medical-viewer-secret", "venue-signing-key", "analyst-secret", "admin-secret"] {
                    #expect(!refusal.reason.contains(secret))
                }
            }
        }
    }

    @Test func coversAnswersForTheStreamsListing() {
        #expect(gate.covers(stream: "away", authorization: nil))
        #expect(!gate.covers(stream: "home", authorization: nil))
        #expect(gate.covers(stream: "home", authorization: "Bearer home-viewer-secret"))
        #expect(!gate.covers(stream: "medical", authorization: "Bearer home-viewer-secret"))
        #expect(gate.covers(stream: "medical", authorization: "Bearer analyst-secret"))
    }

    @Test func thePageCredentialIsSignedWhenItCanBeAndStableForTenMinutes() {
        // Self.now is a multiple of 600: the next ten minutes share one expiry.
        let first = Self.rules.viewerCredential(for: "home", now: Self.now + 1)!
        #expect(first.hasPrefix("s1~home~\(Int(Self.now) + AccessRules.defaultValidity + 600)~~"))
        #expect(Self.rules.viewerCredential(for: "home", now: Self.now + 599) == first)
        #expect(Self.rules.viewerCredential(for: "home", now: Self.now + 601) != first)
        #expect(AccessRules(viewerTokens: ["home": "t"]).viewerCredential(for: "home", now: Self.now)!.hasPrefix("v1~home~"))
        #expect(Self.rules.viewerCredential(for: "away", now: Self.now) == nil)
    }

    @Test(arguments: [("90s", 90 as Int?), ("30m", 1800), ("3h", 10800), ("2d", 172_800), ("3", nil), ("h", nil), ("0m", nil), ("-5m", nil), ("+5m", nil),
                      ("1.5h", nil), ("400d", nil), ("99999999999999999999h", nil)])
    func validityTexts(text: String, seconds: Int?) {
        #expect(ValidityText.seconds(text) == seconds)
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
