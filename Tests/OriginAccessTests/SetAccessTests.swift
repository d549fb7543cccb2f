import Foundation
import OriginAccess
import OriginPolicy
import Testing

/// A private angle set opens with one credential: the gate's rows for a set (private when any
/// angle is), a credential made for it (every angle, the set's master, its markers), and one
/// made for an angle (that angle only).
@Suite struct SetAccessTests {
    static let now = 1_800_000_000.0
    /// `match`: two private angles sharing a token, one open. `derby`: two private angles with
    /// different tokens. `friendly`: open angles only.
    static let rules = AccessRules(
        viewerTokens: ["wide": "match-token", "tv": "match-token", "north": "north-token", "south": "south-token"],
        signingKey: "venue-signing-key", staffTokens: ["analyst-secret"],
        angleSets: ["match": ["wide", "tv", "goal"], "derby": ["north", "south"], "friendly": ["a", "b"]]
    )
    let gate = AccessGate(rules: rules)

    static func signed(_ name: String, expires: Int = Int(now) + 60, variant: String? = nil) -> String {
        rules.signedCredential(for: name, expires: expires, variant: variant)!
    }

    enum Expected: Equatable { case pass, unauthorized, forbidden }

    func outcome(_ target: String, authorization: String? = nil) -> Expected {
        switch gate.check(target: target, authorization: authorization, now: Self.now) {
        case .pass: return .pass
        case let .refuse(refusal): return refusal.kind == .forbidden ? .forbidden : .unauthorized
        }
    }

    @Test(arguments: [
        ("match", true), ("derby", true), ("friendly", false), ("wide", true), ("goal", false), ("nothing", false),
    ])
    func aSetIsPrivateWhenAnyAngleIs(name: String, isPrivate: Bool) {
        #expect(Self.rules.isPrivate(name) == isPrivate)
    }

    @Test(arguments: [
        // The set's master and every angle, with nothing: refused where private.
        ("/live/match/master.m3u8", nil as String?, Expected.unauthorized),
        ("/vod/match/master.m3u8", nil, .unauthorized),
        ("/live/tv/720p/000001.ts", nil, .unauthorized),
        ("/live/goal/720p/000001.ts", nil, .pass),
        ("/live/friendly/master.m3u8", nil, .pass),
        // A set's markers and clips are the set's footage; its description is not.
        ("/api/sets/match/markers", nil, .unauthorized),
        ("/api/sets/match/clip.zip", nil, .unauthorized),
        ("/api/sets/match", nil, .pass),
        ("/api/sets", nil, .pass),
        // One credential for the set opens the set and every angle.
        ("/access/\(signed("match"))/live/match/master.m3u8", nil, .pass),
        ("/access/\(signed("match"))/vod/match/master.m3u8", nil, .pass),
        ("/access/\(signed("match"))/live/wide/720p/index.m3u8", nil, .pass),
        ("/access/\(signed("match"))/live/tv/360p/000004.ts", nil, .pass),
        ("/access/\(signed("match"))/live/goal/720p/iframes.m3u8", nil, .pass),
        ("/access/\(signed("match"))/api/sets/match/markers", nil, .pass),
        ("/access/\(signed("match"))/api/streams/tv/markers", nil, .pass),
        // ... and nothing of another set or stream.
        ("/access/\(signed("match"))/live/north/720p/index.m3u8", nil, .forbidden),
        ("/access/\(signed("match"))/live/derby/master.m3u8", nil, .forbidden),
        // One angle's credential opens that angle, not the set nor another angle.
        ("/access/\(signed("wide"))/live/wide/720p/index.m3u8", nil, .pass),
        ("/access/\(signed("wide"))/live/tv/720p/index.m3u8", nil, .forbidden),
        ("/access/\(signed("wide"))/live/match/master.m3u8", nil, .forbidden),
        ("/access/\(signed("wide"))/api/sets/match/markers", nil, .forbidden),
        // Expired, or limited to a variant, as for a stream.
        ("/access/\(signed("match", expires: Int(now) - 1))/live/tv/720p/index.m3u8", nil, .forbidden),
        ("/access/\(signed("match", variant: "360p"))/live/tv/360p/index.m3u8", nil, .pass),
        ("/access/\(signed("match", variant: "360p"))/live/tv/720p/index.m3u8", nil, .forbidden),
        // The set's viewer credential (made from the one token its private angles share).
        ("/access/\(AccessRules(viewerTokens: ["wide": "match-token"], angleSets: ["match": ["wide"]]).viewerCredential(for: "match", now: now)!)/live/tv/720p/index.m3u8", nil, .pass),
        // Bearer tokens: the shared token opens the set; staff tokens open every set; another's does not.
        ("/live/match/master.m3u8", "Bearer match-token", .pass),
        ("/live/match/master.m3u8", "Bearer analyst-secret", .pass),
        ("/live/match/master.m3u8", "Bearer north-token", .forbidden),
        // A set whose private angles have different tokens: no token opens it whole.
        ("/live/derby/master.m3u8", "Bearer north-token", .forbidden),
        ("/live/derby/master.m3u8", "Bearer analyst-secret", .pass),
        ("/access/\(signed("derby"))/live/south/720p/index.m3u8", nil, .pass),
    ])
    func theGatesRowsForASet(target: String, authorization: String?, expected: Expected) {
        #expect(outcome(target, authorization: authorization) == expected, "\(target) \(authorization ?? "")")
    }

    /// A set's viewer token is the one its private angles share; none when they differ (a holder
    /// of one angle's token must not open another's), and then without a signing key no URL.
    @Test func aSetsViewerTokenIsTheOneItsPrivateAnglesShare() {
        #expect(Self.rules.viewerToken(of: "match") == "match-token")
        #expect(Self.rules.viewerToken(of: "derby") == nil)
        #expect(Self.rules.viewerToken(of: "friendly") == nil)
        let unsigned = AccessRules(viewerTokens: Self.rules.viewerTokens, angleSets: Self.rules.angleSets)
        #expect(unsigned.viewerCredential(for: "match", now: Self.now) != nil)
        #expect(unsigned.viewerCredential(for: "derby", now: Self.now) == nil)
        #expect(unsigned.viewerCredential(for: "friendly", now: Self.now) == nil)
        #expect(gate.covers(stream: "match", authorization: "Bearer match-token"))
        #expect(!gate.covers(stream: "derby", authorization: "Bearer north-token"))
        #expect(gate.covers(stream: "friendly", authorization: nil))
    }

    /// `sideline sign <set>`'s URL: the set's master under the set's credential.
    @Test func aSignedSetURLOpensTheSetsMaster() throws {
        let url = try Self.rules.signedMasterURL(base: "https://10.0.0.2:8443", stream: "match", expires: Int(Self.now) + 60)
        let path = String(url.dropFirst("https://10.0.0.2:8443".count))
        #expect(path.hasSuffix("/live/match/master.m3u8"))
        #expect(outcome(path) == .pass)
    }
}
