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

/// Viewer access control, request IDs and Server-Timing on a real server, through both of the
/// origin's paths (the event-loop fast path and the router): 401 and 403 on every kind of
/// resource of a private stream, the credential in the path opening all of them, a
/// variant-limited credential given a master with its variant only.
@Suite struct ViewerAccessHTTPTests {
    let segmentBytes = (0..<(188 * 20)).map { UInt8(truncatingIfNeeded: $0) }
    static let now = 1_800_000_000.0
    static let rules = AccessRules(viewerTokens: ["main": "main-viewer-token"], signingKey: "venue-key", staffTokens: ["staff-token"])

    /// `main` (private) and `open`, each with 720p and 360p, two segments each.
    func makeRegistry() throws -> (StreamRegistry, String) {
        let directory = NSTemporaryDirectory() + "sideline-access-\(UUID().uuidString.prefix(8))"
        let registry = StreamRegistry(clock: { 10 })
        for stream in ["main", "open"] {
            registry.apply(.register(stream: stream, variants: ["720p", "360p"], targetDuration: 2))
            try RecordedVariants.publish(registry, stream: stream, variants: ["720p", "360p"], bytes: segmentBytes, in: directory)
            registry.apply(.master(stream: stream, .parsed("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\n720p/index.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=600000\n360p/index.m3u8\n")))
        }
        return (registry, directory)
    }

    func withServer(_ registry: StreamRegistry, fastPath: Bool, _ body: (Int) async throws -> Void) async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let access = ViewerAccess(rules: Self.rules, wallClock: { Self.now })
        try await ServerUnderTest.with({ onRunning in
            OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger, fastPath: fastPath, access: access, onServerRunning: onRunning)
        }) { port in try await body(port) }
    }

    static let resources = ["/live/main/master.m3u8", "/live/main/720p/index.m3u8", "/live/main/720p/iframes.m3u8", "/live/main/720p/000001.ts",
                            "/vod/main/master.m3u8", "/vod/main/360p/index.m3u8", "/vod/main/360p/000000.ts"]

    func status(_ response: HTTPExchange.Response) -> Int { Int(response.statusLine.split(separator: " ")[1]) ?? 0 }

    @Test(arguments: [true, false])
    func aPrivateStreamAnswers401WithoutCredentialsAnd403ForTheWrongOnes(fastPath: Bool) async throws {
        let (registry, _) = try makeRegistry()
        let otherStream = Self.rules.signedCredential(for: "open", expires: Int(Self.now) + 60)!
        let expired = Self.rules.signedCredential(for: "main", expires: Int(Self.now) - 60)!
        try await withServer(registry, fastPath: fastPath) { port in
            for resource in Self.resources {
                let responses = try await HTTPExchange.send([
                    .get(resource), .get(resource, ["Authorization": "Bearer nope"]),
                    .get("/access/\(otherStream)\(resource)"), .get("/access/\(expired)\(resource)"),
                ], port: port)
                #expect(responses.map(status) == [401, 401, 403, 403], "\(resource)")
                #expect(responses[0].header("www-authenticate") == "Bearer realm=\"sideline-viewer\"")
                #expect(responses[2].header("www-authenticate") == nil)
                for response in responses {
                    let body = String(decoding: response.body, as: UTF8.self)
                    #expect(response.header("cache-control") == "no-store")
                    #expect(body.contains("request-id: \(response.header("x-request-id") ?? "?")"))
                    #expect(!body.contains("main-viewer-token") && !body.contains("venue-key"))
                }
                #expect(String(decoding: responses[3].body, as: UTF8.self).contains("expired"))
            }
            // The open stream needs nothing.
            #expect(try await HTTPExchange.send([.get("/live/open/720p/000001.ts")], port: port).map(status) == [200])
        }
    }

    /// A master fetched under `/access/<credential>/` lists its backup on a mirror with the same
    /// credential, so a player that fails over keeps its access; its relative URIs stay as they
    /// are, and a master with no backup is the one served to everybody (the same tag).
    @Test(arguments: [true, false])
    func aMastersBackupCarriesTheCredentialItWasFetchedWith(fastPath: Bool) async throws {
        let (registry, _) = try makeRegistry()
        registry.apply(.master(stream: "main", .parsed("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=2000000
            720p/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000
            http://mirror.local:8081/live/main/720p/index.m3u8

            """)))
        let credential = Self.rules.signedCredential(for: "main", expires: Int(Self.now) + 60)!
        let open = Self.rules.signedCredential(for: "open", expires: Int(Self.now) + 60)!
        try await withServer(registry, fastPath: fastPath) { port in
            let responses = try await HTTPExchange.send([.get("/access/\(credential)/live/main/master.m3u8"), .get("/access/\(open)/live/open/master.m3u8"),
                                                         .get("/live/open/master.m3u8")], port: port)
            #expect(responses.map(status) == [200, 200, 200])
            let text = String(decoding: responses[0].body, as: UTF8.self)
            #expect(text.contains("\n720p/index.m3u8\n") && text.contains("http://mirror.local:8081/access/\(credential)/live/main/720p/index.m3u8"), "\(text)")
            #expect(responses[1].header("etag") == responses[2].header("etag"), "no backup: the master as served")
        }
    }

    @Test(arguments: [true, false])
    func theCredentialInThePathOpensEveryResource(fastPath: Bool) async throws {
        let (registry, _) = try makeRegistry()
        let viewer = AccessRules(viewerTokens: Self.rules.viewerTokens).viewerCredential(for: "main", now: Self.now)!
        let signed = Self.rules.viewerCredential(for: "main", now: Self.now)!
        try await withServer(registry, fastPath: fastPath) { port in
            for credential in [viewer, signed] {
                let responses = try await HTTPExchange.send(Self.resources.map { .get("/access/\(credential)\($0)") }, port: port)
                #expect(responses.map(status) == Array(repeating: 200, count: Self.resources.count), "\(credential)")
                #expect(responses[3].body == segmentBytes)
            }
            // Bearer tokens work for tools that can send a header: the stream's and staff's.
            let bearer = try await HTTPExchange.send([.get("/live/main/master.m3u8", ["Authorization": "Bearer main-viewer-token"]),
                                                      .get("/live/main/360p/000000.ts", ["Authorization": "Bearer staff-token"])], port: port)
            #expect(bearer.map(status) == [200, 200])
        }
    }

    @Test(arguments: [true, false])
    func aVariantLimitedCredentialGetsAMasterWithItsVariantOnly(fastPath: Bool) async throws {
        let (registry, _) = try makeRegistry()
        let only360 = Self.rules.signedCredential(for: "main", expires: Int(Self.now) + 600, variant: "360p")!
        try await withServer(registry, fastPath: fastPath) { port in
            let responses = try await HTTPExchange.send([
                .get("/access/\(only360)/live/main/master.m3u8"), .get("/access/\(only360)/live/main/360p/index.m3u8"),
                .get("/access/\(only360)/live/main/720p/index.m3u8"), .get("/access/\(only360)/vod/main/master.m3u8"),
            ], port: port)
            #expect(responses.map(status) == [200, 200, 403, 200])
            for master in [responses[0], responses[3]] {
                let text = String(decoding: master.body, as: UTF8.self)
                #expect(text.contains("360p/index.m3u8") && !text.contains("720p"), "\(text)")
            }
            // The limited master is rendered once per master version, like the full one: its
            // entity tag is the same on the next request.
            let again = try await HTTPExchange.send([.get("/access/\(only360)/live/main/master.m3u8")], port: port)
            #expect(again.first?.header("etag") == responses[0].header("etag"))
        }
    }

    @Test(arguments: [true, false])
    func everyAnswerCarriesARequestIDAndPlaylistsAndSegmentsCarryServerTiming(fastPath: Bool) async throws {
        let (registry, directory) = try makeRegistry()
        let credential = Self.rules.viewerCredential(for: "main", now: Self.now)!
        try await withServer(registry, fastPath: fastPath) { port in
            let responses = try await HTTPExchange.send([
                .get("/live/open/720p/index.m3u8", ["X-Request-ID": "player-42"]), .get("/live/open/720p/index.m3u8"),
                .get("/live/open/720p/000000.ts"), .get("/live/open/720p/000000.ts"), .get("/live/nope/master.m3u8"),
                .get("/live/open/720p/index.m3u8", ["X-Request-ID": "has space"]), .get("/access/\(credential)/live/main/360p/index.m3u8"),
            ], port: port)
            #expect(responses[0].header("x-request-id") == "player-42")
            let made = responses.dropFirst().compactMap { $0.header("x-request-id") }
            #expect(made.count == 6 && Set(made).count == 6 && !made.contains("has space"))
            // The registry's clock says 10 s; the segments were published at 10 s.
            #expect(responses[0].header("server-timing") == "publish;dur=0.0;desc=\"since newest segment\"")
            #expect(responses[6].header("server-timing")?.hasPrefix("publish;dur=") == true)
            // The first read of a segment (router: from disk), the second from the cache.
            #expect(responses[3].header("server-timing") == "cache;desc=hit")
            if !fastPath { #expect(responses[2].header("server-timing")?.hasPrefix("disk;dur=") == true) }
            #expect(String(decoding: responses[4].body, as: UTF8.self).hasSuffix("request-id: \(responses[4].header("x-request-id")!)\n"))
            // A 500: a listed segment whose file is gone.
            try FileManager.default.removeItem(atPath: "\(directory)/open/360p/000001.ts")
            let failed = try #require(try await HTTPExchange.send([.get("/live/open/360p/000001.ts", ["X-Request-ID": "trace-500"])], port: port).first)
            #expect(status(failed) == 500)
            #expect(failed.header("x-request-id") == "trace-500")
            #expect(String(decoding: failed.body, as: UTF8.self).hasSuffix("request-id: trace-500\n"))
            // A blocking reload says how long it was held.
            let publisher = Task {
                // Published once the request is held (not after a fixed wait, which a loaded
                // machine outran: the request then came after the segment and was not held).
                let deadline = ContinuousClock.now + .seconds(10)
                while registry.heldRequests == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
                let path = "\(directory)/open/720p/000002.ts"
                _ = FileManager.default.createFile(atPath: path, contents: Data(segmentBytes))
                registry.apply(.publish(.init(.segment("000002.ts", file: .init(path: path, size: segmentBytes.count, duration: 2)),
                    stream: "open", variant: "720p", playlist: TestPlaylists.live(count: 3))))
            }
            let held = try #require(try await HTTPExchange.send([.get("/live/open/720p/index.m3u8?_HLS_msn=2")], port: port).first)
            try await publisher.value
            #expect(held.header("server-timing")?.contains("hold;dur=") == true, "\(held.headers)")
        }
    }
}
