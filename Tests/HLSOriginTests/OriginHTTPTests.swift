import Foundation
import HLSOrigin
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import OriginRegistry
import OriginState
import SidelineTesting
import Testing

/// Real requests to a real server on 127.0.0.1 and an ephemeral port.
@Suite struct OriginHTTPTests {
    let segmentBytes = [UInt8](repeating: 0x47, count: 188 * 10)

    func makeApplication() throws -> (some ApplicationProtocol, String) {
        let directory = NSTemporaryDirectory() + "sideline-origin-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory + "/main/720p", withIntermediateDirectories: true)
        let segmentPath = directory + "/main/720p/000000.ts"
        _ = FileManager.default.createFile(atPath: segmentPath, contents: Data(segmentBytes))
        // A file next to the data directory that no request may reach.
        _ = FileManager.default.createFile(atPath: directory + "/secret.txt", contents: Data("secret".utf8))
        let registry = StreamRegistry(clock: { 0 }) // time stands still: these tests are not about staleness
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        registry.apply(.publish(.init(.segment("000000.ts", file: .init(path: segmentPath, size: segmentBytes.count, duration: 2)),
            stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 1))))
        registry.apply(.master(stream: "main", .parsed("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n720p/index.m3u8\n")))
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return (OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger), directory)
    }

    @Test func playlistsAndSegmentsHaveTheirTypesAndLengths() async throws {
        let (app, _) = try makeApplication()
        try await app.test(.live) { client in
            try await client.execute(uri: "/live/main/master.m3u8", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/vnd.apple.mpegurl")
                #expect(response.headers[.contentLength] == String(response.body.readableBytes))
                #expect(response.headers[.cacheControl] == "public, max-age=1")
                #expect(response.headers[.accessControlAllowOrigin] == "*")
            }
            try await client.execute(uri: "/live/main/720p/index.m3u8", method: .get) { response in
                #expect(response.status == .ok)
                // The recorder's playlist, with what the origin offers on live playlists.
                let control = "#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=12,CAN-SKIP-DATERANGES=YES,CAN-BLOCK-RELOAD=YES\n"
                #expect(String(buffer: response.body) == "#EXTM3U\n" + control + TestPlaylists.live(count: 1).text.dropFirst("#EXTM3U\n".count))
            }
            try await client.execute(uri: "/live/main/720p/000000.ts", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "video/mp2t")
                #expect(response.headers[.contentLength] == String(segmentBytes.count))
                #expect(Array(buffer: response.body) == segmentBytes)
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
            }
        }
    }

    @Test func headAnswersLikeGetWithoutABody() async throws {
        let (app, _) = try makeApplication()
        try await app.test(.live) { client in
            try await client.execute(uri: "/live/main/720p/000000.ts", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "video/mp2t")
                #expect(response.headers[.contentLength] == String(segmentBytes.count))
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(uri: "/live/main/master.m3u8", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/vnd.apple.mpegurl")
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(uri: "/live/main/720p/000009.ts", method: .head) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func segmentsAnswerRangeRequests() async throws {
        let (app, _) = try makeApplication()
        try await app.test(.live) { client in
            try await client.execute(uri: "/live/main/720p/000000.ts", method: .get, headers: [.range: "bytes=188-375"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 188-375/\(segmentBytes.count)")
                #expect(response.headers[.contentLength] == "188")
                #expect(response.headers[.acceptRanges] == "bytes")
                #expect(Array(buffer: response.body) == Array(segmentBytes[188...375]))
            }
            try await client.execute(uri: "/live/main/720p/000000.ts", method: .get, headers: [.range: "bytes=\(segmentBytes.count)-"]) { response in
                #expect(response.status == .rangeNotSatisfiable)
                #expect(response.headers[.contentRange] == "bytes */\(segmentBytes.count)")
            }
            try await client.execute(uri: "/live/main/720p/000000.ts", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.acceptRanges] == "bytes")
            }
        }
    }

    @Test(arguments: [
        ("/live/nope/master.m3u8", 404),
        ("/live/main/720p/000001.ts", 404),
        ("/live/main/480p/index.m3u8", 404),
        ("/live/main/../secret.txt", 404),
        ("/live/%2e%2e/secret.txt", 404),
        ("/live/main/720p/..%2f..%2f..%2fsecret.txt", 404),
        ("/live/main/720p/%2e%2e%2f%2e%2e%2fsecret.ts", 404),
        ("/live/main/720p/000000.ts%00", 400),
        ("/secret.txt", 404),
        ("/live/main/720p/%zz.ts", 400),
    ])
    func refusedRequests(path: String, status: Int) async throws {
        let (app, _) = try makeApplication()
        try await app.test(.live) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status.code == status, "\(path)")
                #expect(!String(buffer: response.body).contains("secret"))
                // A path that cannot be normalised is refused before any route and stored by no
                // cache (another spelling must never be answered with it); a 404 is kept a second.
                #expect(response.headers[.cacheControl] == (status == 400 ? "no-store" : "public, max-age=1"))
            }
        }
    }

    @Test func startingStreamAnswers503WithRetryAfter() async throws {
        let registry = StreamRegistry(clock: { 0 }) // time stands still: these tests are not about staleness
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: Logger(label: "test"))
        try await app.test(.live) { client in
            try await client.execute(uri: "/live/main/master.m3u8", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "2")
            }
        }
    }
}
