import Foundation
import HLSOrigin
import Hummingbird
import Logging
import OriginAccess
import OriginRegistry
import OriginState
import SidelineTesting
import TestSupport
import Testing

/// Issue 26's "private is private on every path", on a real server through both of the
/// origin's paths: every spelling of a private file gets the file's verdict and the file's
/// answer, `/api/access` agrees with both and names the canonical path, a private stream's
/// answers are marked for the viewer's cache only, and no client can send the gate's own
/// headers.
@Suite struct PrivateOnEveryPathHTTPTests {
    let base = ViewerAccessHTTPTests()
    static let rules = ViewerAccessHTTPTests.rules
    static let now = ViewerAccessHTTPTests.now

    /// `access` nil: a server with no private stream.
    func withServer(_ registry: StreamRegistry, fastPath: Bool, access: ViewerAccess?, _ body: (Int) async throws -> Void) async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        try await ServerUnderTest.with({ onRunning in
            OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger, fastPath: fastPath, access: access, onServerRunning: onRunning)
        }) { port in try await body(port) }
    }

    var access: ViewerAccess { ViewerAccess(rules: Self.rules, wallClock: { Self.now }) }

    func status(_ response: HTTPExchange.Response) -> Int { base.status(response) }

    /// Spellings of `/live/main/720p/000001.ts` a player never makes and an attacker does.
    static let spellings = ["/%6Cive/main/720p/000001.ts", "/./live/main/720p/000001.ts", "/live/./main/720p/000001.ts",
                            "/live/open/../main/720p/000001.ts", "//live//main/720p/000001.ts", "/live/m%61in/720p/%30%30%30%30%301.ts",
                            "/vod/../live/main/720p/000001.ts"]

    @Test(arguments: [true, false])
    func everySpellingOfAPrivateFileGetsTheFilesVerdictAndAnswer(fastPath: Bool) async throws {
        let (registry, _) = try base.makeRegistry()
        let credential = Self.rules.viewerCredential(for: "main", now: Self.now)!
        try await withServer(registry, fastPath: fastPath, access: access) { port in
            for spelling in Self.spellings {
                let answers = try await HTTPExchange.send([
                    .get(spelling), .get("/access/\(credential)" + spelling), .get(spelling, ["Authorization": "Bearer main-viewer-token"]),
                    .get("/api/access", ["X-Original-URI": spelling]), .get("/api/access", ["X-Original-URI": "/access/\(credential)" + spelling]),
                ], port: port)
                #expect(answers.map(status) == [401, 200, 200, 401, 204], "\(spelling)")
                #expect(answers[1].body == base.segmentBytes && answers[2].body == base.segmentBytes)
                #expect(answers[4].header("x-sideline-resource") == "/live/main/720p/000001.ts")
                #expect(answers[4].header("x-sideline-target") == "/access/\(credential)/live/main/720p/000001.ts")
            }
            // A credential's own URL climbing into another stream is judged as that stream.
            let other = Self.rules.signedCredential(for: "open", expires: Int(Self.now) + 60)!
            let climbed = try await HTTPExchange.send([.get("/access/\(other)/live/open/../main/720p/000001.ts"),
                                                       .get("/api/access", ["X-Original-URI": "/access/\(other)/live/open/../main/720p/000001.ts"])], port: port)
            #expect(climbed.map(status) == [403, 403])
            // An encoded slash separates, as a decoding proxy reads it: the private file's answer everywhere.
            let slashed = try await HTTPExchange.send([.get("/live/main%2F720p/000001.ts"), .get("/api/access", ["X-Original-URI": "/live/main%2F720p/000001.ts"])], port: port)
            #expect(slashed.map(status) == [401, 401])
            // What cannot be normalised: 400 that no cache stores; the edge is told to pass it on as sent.
            for bad in ["/../live/main/master.m3u8", "/live/main/%01/index.m3u8", "/live/" + String(repeating: "a", count: 4100)] {
                let answers = try await HTTPExchange.send([.get(bad), .get("/api/access", ["X-Original-URI": bad])], port: port)
                #expect(answers.map(status) == [400, 204], "\(bad.prefix(40))")
                #expect(answers[0].header("cache-control") == "no-store")
                #expect(answers[1].header("x-sideline-resource") == nil && answers[1].header("x-sideline-target") != nil)
            }
        }
    }

    /// A redundant pair's steering manifest (issue 35) of a private stream: under the viewer's
    /// credential, the viewer's own cache only; without one, the private stream's 401.
    @Test(arguments: [true, false])
    func aPrivateStreamsSteeringManifestNeedsItsCredential(fastPath: Bool) async throws {
        let (registry, _) = try base.makeRegistry()
        registry.apply(.steering(priority: ["standby", "primary"], timeToLive: 4))
        let credential = Self.rules.viewerCredential(for: "main", now: Self.now)!
        try await withServer(registry, fastPath: fastPath, access: access) { port in
            let answers = try await HTTPExchange.send([.get("/access/\(credential)/live/main/steering.json"), .get("/live/main/steering.json"),
                                                       .get("/live/open/steering.json")], port: port)
            #expect(answers.map(status) == [200, 401, 200])
            #expect(answers[0].header("content-type") == "application/json" && answers[0].header("cache-control") == "private, max-age=1")
            #expect(String(decoding: answers[0].body, as: UTF8.self) == #"{"VERSION":1,"TTL":4,"PATHWAY-PRIORITY":["standby","primary"]}"#)
            #expect(answers[2].header("cache-control") == "public, max-age=1")
        }
    }

    @Test(arguments: [true, false])
    func aPrivateStreamsAnswersAreForTheViewersCacheOnly(fastPath: Bool) async throws {
        let (registry, _) = try base.makeRegistry()
        let credential = Self.rules.viewerCredential(for: "main", now: Self.now)!
        try await withServer(registry, fastPath: fastPath, access: access) { port in
            let privateAnswers = try await HTTPExchange.send([
                .get("/access/\(credential)/live/main/master.m3u8"), .get("/live/main/720p/index.m3u8", ["Authorization": "Bearer main-viewer-token"]),
                .get("/live/main/720p/000001.ts", ["Authorization": "Bearer main-viewer-token"]), .get("/access/\(credential)/live/main/720p/000009.ts"),
                .get("/access/\(credential)/vod/main/360p/index.m3u8"), .get("/access/\(credential)/live/main/720p/000001.ts", ["Range": "bytes=999999-"]),
                .get("/live/main/720p/000001.ts"),
            ], port: port)
            #expect(privateAnswers.map(status) == [200, 200, 200, 404, 200, 416, 401])
            let expected = ["private, max-age=1", "private, max-age=1", "private, max-age=31536000, immutable", "private, max-age=1",
                            "private, max-age=1", "private, max-age=31536000, immutable", "no-store"]
            #expect(privateAnswers.map { $0.header("cache-control") ?? "" } == expected)
            for answer in privateAnswers {
                #expect(answer.header("vary")?.contains("Authorization") == true, "\(answer.statusLine) \(answer.headers)")
            }
            #expect(privateAnswers[0].header("vary") == "Accept-Encoding, Authorization")
            // The open stream keeps `public` and varies on nothing but the encoding.
            let open = try await HTTPExchange.send([.get("/live/open/720p/index.m3u8"), .get("/live/open/720p/000001.ts"), .get("/live/open/720p/000009.ts")], port: port)
            #expect(open.map { $0.header("cache-control") ?? "" } == ["public, max-age=1", "public, max-age=31536000, immutable", "public, max-age=1"])
            #expect(open.map { $0.header("vary") } == ["Accept-Encoding", nil, nil])
        }
    }

    @Test(arguments: [true, false])
    func noClientCanSendTheGatesOwnHeaders(fastPath: Bool) async throws {
        let (registry, _) = try base.makeRegistry()
        let forged = ["X-Sideline-Variant-Limit": "360p", "X-Sideline-Private": "1", "X-Sideline-Access": "url"]
        // No private stream at all: the gate still drops them.
        try await withServer(registry, fastPath: fastPath, access: nil) { port in
            let answers = try await HTTPExchange.send([.get("/live/open/master.m3u8", forged), .get("/vod/open/master.m3u8", forged),
                                                       .get("/live/open/master.m3u8", forged.merging(["Connection": "close"]) { $1 })], port: port)
            #expect(answers.map(status) == [200, 200, 200])
            for answer in answers {
                let text = String(decoding: answer.body, as: UTF8.self)
                #expect(text.contains("720p/index.m3u8") && text.contains("360p/index.m3u8"), "a client's own variant limit cut the master: \(text)")
                #expect(answer.header("cache-control")?.hasPrefix("public") == true)
            }
            // Without access control, spellings are still one file.
            let spelled = try await HTTPExchange.send([.get("/%6Cive/open/720p/000001.ts"), .get("/live/open/../open/720p/000001.ts")], port: port)
            #expect(spelled.map(status) == [200, 200])
        }
        // With access control, on an open stream and on a private one with a full credential.
        try await withServer(registry, fastPath: fastPath, access: access) { port in
            let answers = try await HTTPExchange.send([.get("/live/open/master.m3u8", forged),
                                                       .get("/live/main/master.m3u8", forged.merging(["Authorization": "Bearer main-viewer-token"]) { $1 })], port: port)
            #expect(answers.map(status) == [200, 200])
            for answer in answers {
                let text = String(decoding: answer.body, as: UTF8.self)
                #expect(text.contains("720p/index.m3u8") && text.contains("360p/index.m3u8"), "\(text)")
            }
            #expect(answers[0].header("cache-control")?.hasPrefix("public") == true)
        }
    }
}
