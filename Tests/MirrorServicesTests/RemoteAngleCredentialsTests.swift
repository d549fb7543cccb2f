import OriginAccess
import MirrorServices
import Testing

/// How a box asks another for an angle that box keeps private (issue 35): a short-lived URL
/// credential for that angle alone when the venue has a signing key, the analyst's token
/// otherwise, never the admin's; and the other box's gate takes what it is given.
@Suite struct RemoteAngleCredentialsTests {
    static let now = 1_800_000_100.0
    static let other = AccessGate(rules: AccessRules(viewerTokens: ["goal": "goal-token", "tunnel": "tunnel-token"], signingKey: "venue-key",
                                                     staffTokens: ["analyst-token", "admin-token"]))

    @Test func aSignedCredentialForTheAngleAloneWhenTheVenueHasAKey() throws {
        let credentials = RemoteAngleCredentials(rules: AccessRules(signingKey: "venue-key", staffTokens: ["analyst-token", "admin-token"]), analystToken: "analyst-token")
        let asking = try #require(credentials.asking(for: "goal", now: Self.now))
        #expect(asking.authorization == nil, "no long-lived secret on the wire")
        #expect(asking.prefix.hasPrefix(AccessGate.prefix))
        // Opens the angle's master and entry on the other box, and nothing else there.
        for (target, opens) in [("/live/goal/master.m3u8", true), ("/api/streams/goal", true), ("/live/tunnel/master.m3u8", false)] {
            let verdict = Self.other.check(target: asking.prefix + target, authorization: nil, now: Self.now)
            #expect((verdict == .pass(target: target, variant: nil)) == opens, "\(target): \(verdict)")
        }
        // Valid 5 to 10 minutes, and the same credential for a while (the other box checks its MAC once).
        #expect(Self.other.check(target: asking.prefix + "/live/goal/master.m3u8", authorization: nil, now: Self.now + 299) == .pass(target: "/live/goal/master.m3u8", variant: nil))
        if case .refuse = Self.other.check(target: asking.prefix + "/live/goal/master.m3u8", authorization: nil, now: Self.now + 601) {} else {
            Issue.record("still valid after 10 minutes")
        }
        #expect(credentials.asking(for: "goal", now: Self.now + 100) == asking)
    }

    @Test func theAnalystsTokenWithoutAKeyNeverTheAdmins() {
        let rules = AccessRules(staffTokens: ["analyst-token", "admin-token"])
        #expect(RemoteAngleCredentials(rules: rules, analystToken: "analyst-token").asking(for: "goal", now: Self.now)
            == .init(prefix: "", authorization: "Bearer analyst-token"))
        #expect(RemoteAngleCredentials(rules: rules, analystToken: "").asking(for: "goal", now: Self.now) == nil, "no admin token in its place")
    }
}
