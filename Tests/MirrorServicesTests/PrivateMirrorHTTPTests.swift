import Foundation
import HLSOrigin
import HLSPlaylist
import Hummingbird
import Logging
import MirrorServices
import OriginAccess
import OriginRegistry
import OriginState
import SegmentStore
import SidelineTesting
import StreamMirroring
import Testing
import TestSupport

/// A mirror of a private stream on real servers on 127.0.0.1: an origin with the private
/// stream, the mirror following it through a signed URL, and the mirror's own origin with the
/// origin's access rules. Nobody without a credential is served by the mirror; a player that
/// fails over with the credential it has is; the mirror's upstream log keeps no credential.
@Suite struct PrivateMirrorHTTPTests {
    static let rules = AccessRules(viewerTokens: ["main": "main-viewer-token-0123"], signingKey: "venue-signing-key-0123")

    static func temporaryDirectory() throws -> String {
        let directory = NSTemporaryDirectory() + "sideline-private-mirror-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// An origin serving `registry` with `access`, stopped gracefully (`ServerUnderTest`).
    static func serve(_ registry: StreamRegistry, access: ViewerAccess?) async throws -> ServerUnderTest {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try await ServerUnderTest.start { onRunning in
            OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger, access: access, onServerRunning: onRunning)
        }
    }

    static func get(_ url: String, authorization: String? = nil) async throws -> (status: Int, body: String) {
        let answer = try await http(try #require(URL(string: url)), headers: authorization.map { ["Authorization": $0] } ?? [:], timeout: 10)
        return (answer.status, String(decoding: answer.body, as: UTF8.self))
    }

    @Test func aPrivateStreamsMirrorServesCredentialHoldersOnlyAndLogsNoCredential() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The origin: stream 'main', private, three segments, ended.
        let upstream = StreamRegistry(clock: { 10 })
        upstream.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        try FileManager.default.createDirectory(atPath: "\(directory)/origin/720p", withIntermediateDirectories: true)
        for n in 0..<3 {
            let name = String(format: "%06d.ts", n), path = "\(directory)/origin/720p/\(name)"
            _ = FileManager.default.createFile(atPath: path, contents: Data(TestSegments.minimal()))
            upstream.apply(.publish(.init(.segment(name, file: .init(path: path, size: 4 * 188, duration: 2)),
                stream: "main", variant: "720p", playlist: TestPlaylists.live(count: n + 1, ended: n == 2))))
        }
        upstream.apply(.master(stream: "main", .parsed("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS=\"avc1.64001f\"\n720p/index.m3u8\n")))
        let origin = try await Self.serve(upstream, access: ViewerAccess(rules: Self.rules)), originPort = origin.port
        defer { Task { await origin.stop() } }

        // The credential a player holds (a signed URL), and the mirror given one of its own.
        let credential = try #require(Self.rules.signedCredential(for: "main", expires: Int(Date().timeIntervalSince1970) + 3600))
        let mirrorUpstream = try MirrorUpstream(url: "http://127.0.0.1:\(originPort)/access/\(credential)/live/main/master.m3u8", stream: nil, headers: [],
                                                isValidName: { !$0.isEmpty })
        #expect(mirrorUpstream.isPrivate)
        let mirrorRules = try #require(try MirrorAccess.rules(upstreamIsPrivate: mirrorUpstream.isPrivate, stream: "main", rules: Self.rules, serveOpenly: false))
        let layout = StreamLayout(dataDirectory: "\(directory)/mirror", stream: "main")
        try MirrorDisk.prepare(layout)
        let logPath = "\(layout.streamDirectory)/upstream-responses.jsonl"
        let client = try UpstreamClient(headers: mirrorUpstream.headers, recordedHeaders: ["Content-Type", "Cache-Control"], responseLogPath: logPath)
        let registry = StreamRegistry()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let session = MirrorService.session(upstream: mirrorUpstream.master, chosen: nil, client: client,
                                            destination: MirrorDisk(layout: layout, registry: registry), logger: logger)
        let following = Task { try await session.run() }
        defer { following.cancel() }
        let mirror = try await Self.serve(registry, access: ViewerAccess(rules: mirrorRules)), mirrorPort = mirror.port
        defer { Task { await mirror.stop() } }

        // The player that fails over keeps its credential: the mirror answers it.
        let withCredential = "http://127.0.0.1:\(mirrorPort)/access/\(credential)/live/main"
        let deadline = ContinuousClock.now + .seconds(20)
        var media = try await Self.get("\(withCredential)/720p/index.m3u8")
        while ContinuousClock.now < deadline, media.status != 200 || !media.body.contains("000002.ts") {
            try await Task.sleep(for: .milliseconds(100))
            media = try await Self.get("\(withCredential)/720p/index.m3u8")
        }
        #expect(media.status == 200 && media.body.contains("000002.ts"), "\(media)")
        #expect(try await Self.get("\(withCredential)/master.m3u8").status == 200)
        #expect(try await Self.get("\(withCredential)/720p/000001.ts").status == 200)
        #expect(try await Self.get("http://127.0.0.1:\(mirrorPort)/live/main/720p/index.m3u8", authorization: "Bearer main-viewer-token-0123").status == 200)
        // Nobody without one: master, media playlist, segment, VOD, the streams list's URLs.
        for path in ["/live/main/master.m3u8", "/live/main/720p/index.m3u8", "/live/main/720p/000001.ts", "/vod/main/master.m3u8"] {
            #expect(try await Self.get("http://127.0.0.1:\(mirrorPort)\(path)").status == 401, "\(path)")
        }
        #expect(try await Self.get("http://127.0.0.1:\(mirrorPort)/live/main/master.m3u8", authorization: "Bearer wrong-token-0123456789").status == 401)
        // An expired signed URL is refused by the mirror as by the origin.
        let expired = try #require(Self.rules.signedCredential(for: "main", expires: Int(Date().timeIntervalSince1970) - 60))
        #expect(try await Self.get("http://127.0.0.1:\(mirrorPort)/access/\(expired)/live/main/master.m3u8").status == 403)

        // Failover: the origin lists the mirror as a backup; fetched with the credential, the
        // master's backup URI carries it, and the mirror answers it. Fetched with a bearer
        // token, the master has no credential to give (the player sends its header again).
        upstream.apply(.master(stream: "main", .parsed("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\n720p/index.m3u8\n"
            + "#EXT-X-STREAM-INF:BANDWIDTH=2000000\nhttp://127.0.0.1:\(mirrorPort)/live/main/720p/index.m3u8\n")))
        let master = try await Self.get("http://127.0.0.1:\(originPort)/access/\(credential)/live/main/master.m3u8")
        let backup = try #require(master.body.split(separator: "\n").last.map(String.init), "\(master)")
        #expect(backup == "\(withCredential)/720p/index.m3u8", "\(master.body)")
        #expect(try await Self.get(backup).status == 200)
        // Any spelling of that URL gets the same master: the gate's canonical form carries the credential.
        let respelled = try await Self.get("http://127.0.0.1:\(originPort)//access/\(credential)/./live/main/master.m3u8")
        #expect(respelled.status == 200 && respelled.body.split(separator: "\n").last.map(String.init) == backup, "\(respelled.body)")
        let bearerMaster = try await Self.get("http://127.0.0.1:\(originPort)/live/main/master.m3u8", authorization: "Bearer main-viewer-token-0123")
        #expect(bearerMaster.status == 200 && bearerMaster.body.hasSuffix("http://127.0.0.1:\(mirrorPort)/live/main/720p/index.m3u8\n"), "\(bearerMaster.body)")

        await client.shutdown()
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(log.contains("/access/<redacted>/live/main/"), "\(log.prefix(300))")
        #expect(!log.contains(credential))
    }
}
