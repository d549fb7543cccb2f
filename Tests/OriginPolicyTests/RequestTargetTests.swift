import OriginPolicy
import Testing

/// `RequestTarget.normalise`, row by row: every spelling of a file has one canonical path, an
/// encoded slash never becomes a separator, and what cannot be normalised is a 400 that no
/// cache stores.
@Suite struct RequestTargetTests {
    static func canonical(_ raw: String) -> String? {
        guard case let .success(target) = RequestTarget.normalise(raw) else { return nil }
        return target.target
    }

    @Test(arguments: [
        // Already canonical: as it is.
        ("/live/home/720p/000001.ts", "/live/home/720p/000001.ts"),
        ("/", "/"),
        ("/live/home/720p/index.m3u8?_HLS_msn=3&_HLS_skip=YES", "/live/home/720p/index.m3u8?_HLS_msn=3&_HLS_skip=YES"),
        ("/access/s1~home~1800000000~~AbC-_9/live/home/master.m3u8", "/access/s1~home~1800000000~~AbC-_9/live/home/master.m3u8"),
        // The spellings the issue found let through: one name each.
        ("/%6Cive/home/720p/000001.ts", "/live/home/720p/000001.ts"),
        ("/%6cive/home/master.m3u8", "/live/home/master.m3u8"),
        ("/./live/home/720p/000001.ts", "/live/home/720p/000001.ts"),
        ("/live/./home/720p/000001.ts", "/live/home/720p/000001.ts"),
        ("/live/main/../home/720p/000001.ts", "/live/home/720p/000001.ts"),
        ("/access/s1~home~1~~x/live/home/../away/000001.ts", "/access/s1~home~1~~x/live/away/000001.ts"),
        // Encoded dots are dots; repeated slashes are one.
        ("/live/%2e%2E/live/home/master.m3u8", "/live/home/master.m3u8"),
        ("/live/%2E/home/master.m3u8", "/live/home/master.m3u8"),
        ("//live///home//master.m3u8", "/live/home/master.m3u8"),
        // A slash or backslash, encoded or raw, separates as a proxy that decodes it reads it
        // (issue 33): the file it names, not a name of no stream.
        ("/live/main%2F180p/index.m3u8", "/live/main/180p/index.m3u8"),
        ("/live/main%2f180p/index.m3u8", "/live/main/180p/index.m3u8"),
        ("/live/main%2F..%2Fhome/master.m3u8", "/live/home/master.m3u8"),
        ("/live%2Fhome%2F720p%2F000001.ts", "/live/home/720p/000001.ts"),
        ("/live/main%5C180p/index.m3u8", "/live/main/180p/index.m3u8"),
        ("/live/main\\180p\\index.m3u8", "/live/main/180p/index.m3u8"),
        ("/live/main%2F%2F180p/index.m3u8", "/live/main/180p/index.m3u8"),
        ("/live/home%2F", "/live/home/"),
        ("/live/home%2F.", "/live/home/"),
        // Other reserved or unsafe bytes: encoded, in capitals; pchar as it is.
        ("/live/a b/%3f/%25/%7e/%21", "/live/a%20b/%3F/%25/~/!"),
        ("/live/\u{e9}t\u{e9}", "/live/%C3%A9t%C3%A9"),
        // Directories keep their trailing slash; the root stays the root.
        ("/live/home/", "/live/home/"),
        ("/live/home/.", "/live/home/"),
        ("/live/home/..", "/live/"),
        ("/live/..", "/"),
        ("//", "/"),
        // The query is kept as sent, dots, escapes and all.
        ("/./live/x.m3u8?a=/../%2F", "/live/x.m3u8?a=/../%2F"),
    ])
    func everySpellingHasOneCanonicalForm(raw: String, expected: String) {
        #expect(Self.canonical(raw) == expected, "\(raw)")
        // And the canonical form is its own.
        #expect(Self.canonical(expected) == expected)
    }

    /// `isCanonicalTarget`, the check every request's path takes before any copy, says yes
    /// only when `normalise` gives the target back as it is, and always then unless the path
    /// holds an escape.
    @Test(arguments: [
        "/live/home/720p/000001.ts", "/", "/live/home/720p/index.m3u8?_HLS_msn=3&_HLS_skip=YES", "/live/home/",
        "/access/s1~home~1800000000~~AbC-_9/live/home/master.m3u8", "/%6Cive/home/720p/000001.ts", "/./live/x.m3u8",
        "/live/./home/000001.ts", "/live/main/../home/000001.ts", "//live///home//master.m3u8", "/live/main%2F180p/index.m3u8",
        "/live/a b/", "/live/\u{e9}t\u{e9}", "/live/home/.", "/live/home/..", "//", "/./live/x.m3u8?a=/../%2F", "/live/x.m3u8?a=/../%2F",
        "/../live/home/master.m3u8", "/live/h\u{0}ome/master.m3u8", "/live/home%", "live/home/master.m3u8", "*", "", "?a=b",
        "/" + String(repeating: "a", count: RequestTarget.maximumLength), "/" + String(repeating: "a", count: RequestTarget.maximumLength - 1),
    ])
    func theFastCheckAgreesWithTheNormalisation(raw: String) {
        let fast = RequestTarget.isCanonicalTarget(raw)
        // Yes only for a target the normalisation keeps as it is.
        if fast { #expect(Self.canonical(raw) == raw, "\(raw)") }
        // And yes for every such target without an escape (a path with one takes the long way).
        let path = raw.prefix { $0 != "?" }
        if !path.contains("%") { #expect(fast == (Self.canonical(raw) == raw), "\(raw)") }
    }

    @Test(arguments: [
        ("/../live/home/master.m3u8", "above the root"),
        ("/live/../../home/master.m3u8", "above the root"),
        ("/%2e%2e/live/home/master.m3u8", "above the root"),
        ("/live/h%00ome/master.m3u8", "control character"),
        ("/live/h\u{0}ome/master.m3u8", "control character"),
        ("/live/h%0Aome/master.m3u8", "control character"),
        ("/live/h%7Fome/master.m3u8", "control character"),
        ("/live/h%zzome/master.m3u8", "percent-encoding"),
        ("/live/home%2", "percent-encoding"),
        ("/live/home%", "percent-encoding"),
        ("live/home/master.m3u8", "starts with '/'"),
        ("http://host/live/home/master.m3u8", "starts with '/'"),
        ("*", "starts with '/'"),
        ("", "starts with '/'"),
    ])
    func whatCannotBeNormalisedIsA400NoCacheStores(raw: String, reason: String) throws {
        guard case let .failure(refusal) = RequestTarget.normalise(raw) else {
            Issue.record("\(raw) was normalised")
            return
        }
        #expect(refusal.kind == .malformedRequest && refusal.status == 400)
        #expect(refusal.cache == .noStore, "another spelling must not be answered with it")
        #expect(refusal.reason.contains(reason), "\(refusal.reason)")
    }

    @Test func anOverlongPathIsRefusedAndOneAtTheBoundIsNot() {
        let atBound = "/" + String(repeating: "a", count: RequestTarget.maximumLength - 1)
        #expect(Self.canonical(atBound) == atBound)
        #expect(Self.canonical(atBound + "a") == nil)
        // Many dot segments within the bound: linear work, one answer.
        #expect(Self.canonical(String(repeating: "/a/..", count: 800) + "/live") == "/live")
        // The query does not count towards the bound (its own parsers bound what they read).
        #expect(Self.canonical("/x?" + String(repeating: "q", count: 10_000)) != nil)
    }

    /// Found by the request-target fuzz target: raw bytes outside `pchar` grow threefold when
    /// encoded, so a path under the bound had a canonical form over it, which then did not
    /// normalise to itself. The canonical form is held to the bound too.
    @Test func aPathWhoseEncodingPassesTheBoundIsRefusedSoTheCanonicalFormIsAFixedPoint() throws {
        var bytes = Array("/live/".utf8) + [UInt8](repeating: 0x8A, count: 30) + Array("/".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "a"), count: RequestTarget.maximumLength - 1 - bytes.count)
        #expect(bytes.count < RequestTarget.maximumLength)
        let result = bytes.withUnsafeBufferPointer { RequestTarget.normalise($0) }
        guard case let .failure(refusal) = result else {
            Issue.record("a canonical form over the bound was returned: \(result)")
            return
        }
        #expect(refusal.status == 400 && refusal.reason.contains("percent-encoded"))
        let short = Array("/live/".utf8) + [0x8A, 0x8A] + Array("/x".utf8)
        let canonical = try #require(try? short.withUnsafeBufferPointer { RequestTarget.normalise($0) }.get())
        #expect(canonical.path == "/live/%8A%8A/x")
        #expect(RequestTarget.normalise(canonical.path) == .success(canonical))
    }
}
