import Foundation
import HLSOrigin
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import OriginAccess
import OriginAPI
import OriginRegistry
import OriginState
import SidelineTesting
import Synchronization
import Testing

/// Clips of a private stream honour the credential on a real server: none is 401, another
/// stream's 403, and a credential limited to one variant clips that variant only (403 for
/// another, and its own when none is asked). The maker writes a small file instead of
/// remuxing (the remux is MarkersAndClipsEndToEndTests' business); it records which
/// variant's segments it was given.
@Suite struct ClipAccessHTTPTests {
    final class RecordingMaker: ClipMaking {
        let asked = Mutex<[String]>([])
        func makeClip(segments: [String], start: Double, end: Double, into path: String) async throws -> ClipMade {
            asked.withLock { $0.append(segments.first ?? "") }
            _ = FileManager.default.createFile(atPath: path, contents: Data(count: 64))
            return ClipMade(duration: end - start, snappedBy: 0, bytes: 64)
        }
    }

    static let now = 1_800_000_000.0
    static let rules = AccessRules(viewerTokens: ["main": "main-viewer-token"], signingKey: "venue-key")

    @Test func aClipOfAPrivateStreamHonoursTheCredentialAndItsVariantLimit() async throws {
        let directory = NSTemporaryDirectory() + "clip-access-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p", "360p"], targetDuration: 2))
        for variant in ["720p", "360p"] {
            for n in 0..<3 {
                registry.apply(.publish(.init(.segment(String(format: "%06d.ts", n), file: .init(path: "\(directory)/main/\(variant)/\(n).ts", size: 1000, duration: 2)),
                    stream: "main", variant: variant, playlist: TestPlaylists.live(count: n + 1))))
            }
        }
        let maker = RecordingMaker()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger,
                                               routes: [{ ClipRoutes(registry: registry, maker: maker, dataDirectory: directory).add(to: $0) },
                                                        { MarkerRoutes(registry: registry, book: MarkerBook(registry: registry, dataDirectory: directory),
                                                                       analystToken: "", adminToken: "").add(to: $0) }],
                                               access: ViewerAccess(rules: Self.rules, wallClock: { Self.now }))
        let only360 = Self.rules.signedCredential(for: "main", expires: Int(Self.now) + 600, variant: "360p")!
        let whole = Self.rules.signedCredential(for: "main", expires: Int(Self.now) + 600)!
        let clip = "/api/streams/main/clip.mp4?start=0&end=4"
        try await app.test(.live) { client in
            func get(_ uri: String) async throws -> (Int, String?, String?) {
                try await client.execute(uri: uri, method: .get) { ($0.status.code, $0.headers[.cacheControl], $0.headers[.vary]) }
            }
            let none = try await get(clip)
            #expect(none.0 == 401 && none.1 == "no-store")
            #expect(try await get("/access/\(only360)\(clip)&variant=720p").0 == 403, "a 360p URL cannot clip 720p")
            #expect(try await get("/access/\(only360)/./api/streams/main/clip.mp4?start=0&end=4&variant=720p").0 == 403, "in any spelling")
            #expect(try await get("/access/\(only360)\(clip)&variant=360p").0 == 200)
            #expect(try await get("/access/\(only360)\(clip)").0 == 200)
            #expect(try await get("/access/\(whole)\(clip)&variant=720p").0 == 200)
            // A refusal of the clip route of a private stream is the viewer's alone, too.
            let missing = try await get("/access/\(whole)/api/streams/main/clip.mp4?start=0&end=4&variant=1080p")
            #expect(missing.0 == 404 && missing.1 == "private, max-age=1" && missing.2 == "Authorization", "\(missing)")
            // The APIs' own answers of a private stream (its markers) are the viewer's alone too.
            let markers = try await get("/access/\(whole)/api/streams/main/markers")
            #expect(markers.0 == 200 && markers.1 == "private, no-cache" && markers.2 == "Authorization", "\(markers)")
            // A client's own limit header is no limit, and claims nothing.
            let forged = try await client.execute(uri: "/access/\(whole)\(clip)&variant=720p", method: .get, headers: [HTTPField.Name("X-Sideline-Variant-Limit")!: "360p"]) { $0.status.code }
            #expect(forged == 200)
        }
        // Limited without a variant asked: its own variant's segments, not the top one's.
        #expect(maker.asked.withLock { $0 }.map { $0.contains("/360p/") } == [true, true, false, false])
    }
}
