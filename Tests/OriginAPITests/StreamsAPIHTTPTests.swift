import Foundation
import HLSOrigin
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationCompat
import OriginAPI
import OriginRegistry
import OriginState
import SidelineTesting
import Testing

/// `GET /api/streams` over real HTTP on 127.0.0.1.
@Suite struct StreamsAPIHTTPTests {
    let segmentBytes = [UInt8](repeating: 0x47, count: 188 * 10)

    /// One stream with one 2 s segment of `segmentBytes` (the API reads sizes, never the file).
    func makeApplication() -> some ApplicationProtocol {
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        registry.apply(.publish(.init(.segment("000000.ts", file: .init(path: "/unread", size: segmentBytes.count, duration: 2)),
            stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 1))))
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger,
                                            routes: [{ StreamsRoutes(registry: registry, dataDirectory: nil).add(to: $0) }])
    }

    @Test func streamsAPIListsStreamsWithTheirMeasuredRates() async throws {
        let app = makeApplication()
        try await app.test(.live) { client in
            try await client.execute(uri: "/api/streams", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let listing = try JSONDecoder().decode(StreamsAPI.Listing.self, from: Data(buffer: response.body))
                let stream = try #require(listing.streams.first)
                #expect(listing.streams.count == 1)
                #expect(stream.id == "main" && stream.state == "live" && stream.master == "/live/main/master.m3u8" && stream.vodMaster == "/vod/main/master.m3u8")
                #expect(stream.markers == "/api/streams/main/markers")
                #expect(stream.variants == [StreamsAPI.VariantInfo(
                    name: "720p", playlist: "/live/main/720p/index.m3u8", segments: 1, durationRecorded: 2, bytesRecorded: segmentBytes.count,
                    averageBitRate: segmentBytes.count * 8 / 2, peakSegmentBitRate: segmentBytes.count * 8 / 2
                )])
            }
        }
    }
}
