import CompressNIO
import Foundation
@testable import HLSOrigin
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
@testable import OriginRegistry
import OriginState
import SidelineTesting
import Testing

/// gzip once per playlist version, ETag per representation, 304 for If-None-Match.
@Suite struct PlaylistCompressionTests {
    /// A playlist long enough to be worth compressing: 200 entries.
    static let longPlaylist = TestPlaylists.live(count: 200)

    @Test(arguments: [
        (nil, false), ("gzip", true), ("deflate, gzip;q=0.5", true), ("gzip;q=0", false), ("GZIP", true), ("*", true), ("identity", false),
        ("br, x-gzip", true), ("gzip; q=0.000", false),
    ] as [(String?, Bool)])
    func acceptEncoding(header: String?, gzip: Bool) {
        #expect(PlaylistNegotiation.acceptsGzip(header) == gzip, "\(header ?? "nil")")
    }

    @Test func ifNoneMatchUsesTheWeakComparison() {
        #expect(PlaylistNegotiation.matches("\"a-1\"", "\"a-1\""))
        #expect(PlaylistNegotiation.matches("W/\"a-1\"", "\"a-1\""))
        #expect(PlaylistNegotiation.matches("\"x\", \"a-1\"", "\"a-1\""))
        #expect(PlaylistNegotiation.matches("*", "\"a-1\""))
        #expect(!PlaylistNegotiation.matches("\"a-2\"", "\"a-1\""))
        #expect(!PlaylistNegotiation.matches("\"a-1-gz\"", "\"a-1\""), "the gzip representation has its own tag")
    }

    /// Compressed when it pays: a playlist under `compressionThreshold` bytes is offered plain
    /// only; a long one in both forms, the gzip form with a tag of its own.
    @Test func aRenderedPlaylistIsCompressedOnlyWhenItPays() throws {
        let short = RenderedPlaylist(text: "#EXTM3U\n#EXT-X-ENDLIST\n", tag: "s")
        #expect(short.gzip == nil && short.etag == "\"s\"")
        let long = RenderedPlaylist(text: Self.longPlaylist.text, tag: "l")
        var gzip = try #require(long.gzip)
        #expect(try gzip.decompress(with: .gzip()) == long.plain && long.gzipETag == "\"l-gz\"")
    }

    @Test func eachVersionIsCompressedOnceAndTaggedUniquely() throws {
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        registry.apply(.publish(.init(.playlists, stream: "main", variant: "720p", playlist: Self.longPlaylist)))
        let first = try #require(registry.snapshot(of: "main")?.served.variants["720p"]?.playlist?.full)
        var compressed = try #require(first.gzip)
        #expect(compressed.readableBytes * 5 < first.plain.readableBytes, "\(compressed.readableBytes) of \(first.plain.readableBytes)")
        let expanded = try compressed.decompress(with: .gzip())
        #expect(expanded == first.plain)
        #expect(String(buffer: first.plain).contains(Self.longPlaylist.text.dropFirst("#EXTM3U\n".count)))
        registry.apply(.publish(.init(.playlists, stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 200, ended: true))))
        let second = try #require(registry.snapshot(of: "main")?.served.variants["720p"]?.playlist?.full)
        #expect(second.etag != first.etag && second.gzipETag != first.gzipETag)
        // Too short to be worth it: only the plain bytes.
        registry.apply(.publish(.init(.playlists, stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 1, ended: true))))
        #expect(registry.snapshot(of: "main")?.served.variants["720p"]?.playlist?.full.gzip == nil)
    }

    /// A real server on an ephemeral port.
    @Test func gzipEtagAnd304OverHTTP() async throws {
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        registry.apply(.publish(.init(.segment("000000.ts", file: .init(path: "/nonexistent", size: 188, duration: 2)),
            stream: "main", variant: "720p", playlist: Self.longPlaylist)))
        let served = try #require(registry.playlistText(stream: "main", variant: "720p"))
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger)
        let uri = "/live/main/720p/index.m3u8"
        try await app.test(.live) { client in
            var plainTag = ""
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentEncoding] == nil)
                #expect(response.headers[.vary] == "Accept-Encoding")
                plainTag = try #require(response.headers[.eTag])
                #expect(String(buffer: response.body) == served)
            }
            var gzipTag = ""
            try await client.execute(uri: uri, method: .get, headers: [.acceptEncoding: "gzip, deflate"]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentEncoding] == "gzip")
                #expect(response.headers[.vary] == "Accept-Encoding")
                #expect(response.headers[.contentType] == "application/vnd.apple.mpegurl")
                gzipTag = try #require(response.headers[.eTag])
                var body = response.body
                #expect(String(buffer: try body.decompress(with: .gzip())) == served)
                #expect(response.headers[.contentLength] == String(response.body.readableBytes))
            }
            #expect(gzipTag != plainTag)
            try await client.execute(uri: uri, method: .get, headers: [.acceptEncoding: "gzip", .ifNoneMatch: gzipTag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.eTag] == gzipTag)
                #expect(response.headers[.cacheControl] == "public, max-age=1")
            }
            // A new version: the old tag no longer matches.
            registry.apply(.publish(.init(.segment("000001.ts", file: .init(path: "/nonexistent", size: 188, duration: 2)),
                stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 201))))
            try await client.execute(uri: uri, method: .get, headers: [.acceptEncoding: "gzip", .ifNoneMatch: gzipTag]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] != gzipTag)
            }
        }
    }
}
