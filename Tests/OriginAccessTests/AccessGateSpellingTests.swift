import OriginAccess
import OriginPolicy
import Testing

/// Every spelling of a private stream's file gets the verdict of the file itself: the gate
/// judges the canonical path (`RequestTarget`), passes that path on, and says that the answer
/// is the credential holder's alone.
@Suite struct AccessGateSpellingTests {
    static let now = 1_800_000_000.0
    static let rules = AccessRules(viewerTokens: ["home": "home-viewer-secret", "away": "away-viewer-secret"], signingKey: "venue-signing-key")
    let gate = AccessGate(rules: rules)

    static func signed(_ stream: String, variant: String? = nil) -> String {
        rules.signedCredential(for: stream, expires: Int(now) + 60, variant: variant)!
    }

    static let spellings = [
        "/live/home/720p/000001.ts",
        "/%6Cive/home/720p/000001.ts",
        "/%6cive/home/720p/000001.ts",
        "/./live/home/720p/000001.ts",
        "/live/./home/720p/000001.ts",
        "/live/main/../home/720p/000001.ts",
        "/live/%2e/home/720p/000001.ts",
        "//live//home/720p//000001.ts",
        "/live/h%6Fme/720p/000001.ts",
        "/vod/x/../../live/home/720p/000001.ts",
    ]

    @Test(arguments: spellings)
    func everySpellingOfAPrivateSegmentIs401WithoutACredential(spelling: String) {
        let judgement = gate.judge(target: spelling, authorization: nil, now: Self.now)
        guard case let .refuse(refusal) = judgement.verdict else {
            Issue.record("\(spelling) passed without a credential")
            return
        }
        #expect(refusal.kind == .unauthorized)
        #expect(judgement.audience == .credentialHolders)
        #expect(judgement.resource == "/live/home/720p/000001.ts")
    }

    @Test(arguments: spellings)
    func withTheCredentialEverySpellingPassesAsTheCanonicalFile(spelling: String) {
        let credential = Self.signed("home")
        let judgement = gate.judge(target: "/access/\(credential)" + spelling, authorization: nil, now: Self.now)
        #expect(judgement.verdict == .pass(target: "/live/home/720p/000001.ts", variant: nil))
        #expect(judgement.canonical == "/access/\(credential)/live/home/720p/000001.ts")
        #expect(judgement.resource == "/live/home/720p/000001.ts")
        #expect(judgement.audience == .credentialHolders)
        let bearer = gate.judge(target: spelling, authorization: "Bearer home-viewer-secret", now: Self.now)
        #expect(bearer.verdict == .pass(target: spelling == "/live/home/720p/000001.ts" ? nil : "/live/home/720p/000001.ts", variant: nil))
    }

    @Test func anOwnCredentialDoesNotClimbIntoAnotherStream() {
        let home = Self.signed("home")
        for spelling in ["/access/\(home)/live/home/../away/720p/000001.ts", "/access/\(home)/live/home/%2e%2e/away/720p/000001.ts",
                         "/access/\(home)/./live/away/720p/000001.ts"] {
            guard case let .refuse(refusal) = gate.check(target: spelling, authorization: nil, now: Self.now) else {
                Issue.record("\(spelling) passed")
                continue
            }
            #expect(refusal.kind == .forbidden, "\(spelling)")
        }
        // Climbing out of the prefix leaves no credential: the rest names no stream's footage.
        #expect(gate.check(target: "/access/\(home)/../live/away/720p/000001.ts", authorization: nil, now: Self.now) == .pass(target: "/away/720p/000001.ts", variant: nil))
    }

    @Test func aVariantLimitIsFoundWhateverTheSpelling() {
        let only360 = Self.signed("home", variant: "360p")
        #expect(gate.check(target: "/access/\(only360)/%6Cive/home/master.m3u8", authorization: nil, now: Self.now) == .pass(target: "/live/home/master.m3u8", variant: "360p"))
        #expect(gate.check(target: "/access/\(only360)/api/streams/./home/clip.mp4?start=0&end=4", authorization: nil, now: Self.now)
            == .pass(target: "/api/streams/home/clip.mp4?start=0&end=4", variant: "360p"))
        guard case let .refuse(refusal) = gate.check(target: "/access/\(only360)/live/home/360p/../720p/index.m3u8", authorization: nil, now: Self.now) else {
            Issue.record("another variant passed")
            return
        }
        #expect(refusal.kind == .forbidden)
    }

    /// An encoded slash (or backslash) is a separator, as a decoding proxy reads it: the
    /// private file it spells gets that file's verdict (issue 33; before, `home%2F720p` was one
    /// component, a stream of no name, and passed).
    @Test(arguments: ["/live/home%2F720p/000001.ts", "/live%2Fhome%2F720p%2F000001.ts", "/live/home%5C720p/000001.ts", "/live/home%2f..%2fhome/master.m3u8"])
    func anEncodedSlashGetsTheVerdictOfTheFileItSpells(target: String) {
        let judgement = gate.judge(target: target, authorization: nil, now: Self.now)
        guard case let .refuse(refusal) = judgement.verdict else {
            Issue.record("\(target) passed without a credential: \(judgement.verdict)")
            return
        }
        #expect(refusal.kind == .unauthorized, "\(target)")
    }

    @Test func withoutPrivateStreamsThePathIsStillNormalised() {
        let open = AccessGate(rules: AccessRules())
        #expect(open.check(target: "/./live/x/master.m3u8", authorization: nil, now: 0) == .pass(target: "/live/x/master.m3u8", variant: nil))
        #expect(open.check(target: "/live/x/master.m3u8", authorization: nil, now: 0) == .pass(target: nil, variant: nil))
        guard case let .refuse(refusal) = open.check(target: "/../x", authorization: nil, now: 0) else {
            Issue.record("above the root passed")
            return
        }
        #expect(refusal.status == 400)
    }
}
