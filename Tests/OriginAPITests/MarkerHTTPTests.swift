import Foundation
@testable import HLSOrigin
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationCompat
import OriginAPI
import OriginPolicy
import OriginRegistry
import OriginState
import SegmentStore
import SidelineTesting
import Testing

/// The markers API over real HTTP on 127.0.0.1, with a registry fed by hand and a real data
/// directory: tokens, the playlists that carry a marker, the file that keeps it, a "restart"
/// (a new registry loading that file), and the clip route's refusals.
@Suite struct MarkerHTTPTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    struct Setup {
        let registry: StreamRegistry
        let directory: String
        let book: MarkerBook
    }

    /// Four 2 s entries from `start`; the wall clock stands 9 s after it (inside the last entry).
    func setup(directory: String? = nil) throws -> Setup {
        let directory = try directory ?? makeDirectory()
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p", "360p"], targetDuration: 2))
        if case let .success(markers) = MarkerFile.load(StreamLayout(dataDirectory: directory, stream: "main")) {
            registry.apply(.markers(stream: "main", markers))
        }
        for variant in ["720p", "360p"] {
            for n in 0..<4 {
                registry.apply(.publish(.init(.segment(String(format: "%06d.ts", n), file: .init(path: "\(directory)/main/\(variant)/\(n).ts", size: 188, duration: 2)),
                    stream: "main", variant: variant, playlist: TestPlaylists.live(count: n + 1))))
            }
        }
        return Setup(registry: registry, directory: directory, book: MarkerBook(registry: registry, dataDirectory: directory, wallClock: { Self.start.addingTimeInterval(9) }))
    }

    func makeDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "markers-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path + "/main", withIntermediateDirectories: true)
        return path
    }

    func app(_ setup: Setup, analyst: String = "a-token", admin: String = "admin-token") -> some ApplicationProtocol {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return OriginServer.makeApplication(registry: setup.registry, host: "127.0.0.1", port: 0, logger: logger,
                                            routes: [{ MarkerRoutes(registry: setup.registry, book: setup.book, analystToken: analyst, adminToken: admin).add(to: $0) }])
    }

    func playlist(_ registry: StreamRegistry, _ variant: String = "720p") -> String {
        registry.playlistText(stream: "main", variant: variant) ?? ""
    }

    @Test func aMarkerNeedsATokenReachesEveryVariantAndIsKept() async throws {
        let setup = try setup()
        try await app(setup).test(.live) { client in
            let body = ByteBuffer(string: #"{"label": "Try", "time": "now", "lead": 4, "duration": 20}"#)
            try await client.execute(uri: "/api/streams/main/markers", method: .post, body: body) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == "Bearer realm=\"sideline-analyst\"")
            }
            var id = ""
            try await client.execute(uri: "/api/streams/main/markers", method: .post, headers: [.authorization: "Bearer a-token"], body: body) { response in
                #expect(response.status == .created)
                let marker = try MarkerFile.decoder.decode(Marker.self, from: Data(buffer: response.body))
                #expect(marker.time == Self.start.addingTimeInterval(5) && marker.duration == 20 && marker.listedBefore == 4)
                #expect(response.headers[.location] == "/api/streams/main/markers/\(marker.id)")
                id = marker.id
            }
            // Not published yet: after the last entry, in both variants; kept on disk.
            #expect(playlist(setup.registry).hasSuffix("000003.ts\n" + (setup.registry.stream(named: "main")?.markers.first?.dateRange.render() ?? "?")))
            #expect(playlist(setup.registry, "360p").contains("ID=\"\(id)\""))
            #expect(try String(contentsOfFile: setup.directory + "/main/markers.json", encoding: .utf8).contains(id))
            // The admin token writes too.
            try await client.execute(uri: "/api/streams/main/markers", method: .post, headers: [.authorization: "Bearer admin-token"],
                                     body: ByteBuffer(string: #"{"label": "Second"}"#)) { response in
                #expect(response.status == .created)
            }
            try await client.execute(uri: "/api/streams/main/markers", method: .get) { response in
                #expect(response.status == .ok)
                let text = String(buffer: response.body)
                #expect(text.contains("\"offset\" : 5,") && text.contains("\"label\" : \"Second\""), "\(text)")
            }
            try await client.execute(uri: "/api/streams/main/markers/\(id)", method: .delete, headers: [.authorization: "Bearer a-token"]) { response in
                #expect(response.status == .noContent)
            }
            #expect(!playlist(setup.registry).contains(id) && playlist(setup.registry).contains("X-LABEL=\"Second\""))
            try await client.execute(uri: "/api/streams/main/markers/\(id)", method: .delete, headers: [.authorization: "Bearer a-token"]) { response in
                #expect(response.status == .notFound)
            }
        }
        // A restart: a new registry that loads the file serves the remaining marker.
        let restarted = try self.setup(directory: setup.directory)
        #expect(playlist(restarted.registry).contains("X-LABEL=\"Second\"") && restarted.registry.stream(named: "main")?.markers.count == 1)
    }

    @Test func refusalsSayWhy() async throws {
        let setup = try setup()
        try await app(setup).test(.live) { client in
            let post = { (uri: String, body: String) in
                try await client.execute(uri: uri, method: .post, headers: [.authorization: "Bearer a-token"], body: ByteBuffer(string: body)) { response in
                    (response.status.code, String(buffer: response.body))
                }
            }
            let bad = try await post("/api/streams/main/markers", #"{"label": "x", "lead": "soon"}"#)
            #expect(bad.0 == 400 && bad.1.hasPrefix("lead: must be a number of seconds\nrequest-id: "))
            #expect(try await post("/api/streams/nope/markers", #"{"label": "x"}"#).0 == 404)
            setup.registry.apply(.phase(stream: "main", .removed))
            #expect(try await post("/api/streams/main/markers", #"{"label": "x"}"#).0 == 410)
        }
        // No token configured at all: writing is off, and the answer says how to turn it on.
        try await app(try self.setup(), analyst: "", admin: "").test(.live) { client in
            try await client.execute(uri: "/api/streams/main/markers", method: .post, body: ByteBuffer(string: #"{"label": "x"}"#)) { response in
                #expect(response.status == .forbidden && String(buffer: response.body).contains("analyst.token"))
            }
        }
    }

    @Test func clipRequestsAreCheckedBeforeAnythingIsRemuxed() throws {
        let setup = try setup()
        func refusal(_ query: String?) -> (Int, String)? {
            if case let .failure(refused) = ClipPlan.plan(stream: "main", query: query, registry: setup.registry) { return (refused.status, refused.reason) }
            return nil
        }
        #expect(refusal("start=4&end=2")?.0 == 400)
        #expect(refusal("start=100")?.1.contains("outside the recording") == true)
        #expect(refusal("variant=1080p")?.1 == "stream 'main' has no variant '1080p'; it has 720p, 360p")
        #expect(ClipPlan.plan(stream: "other", query: nil, registry: setup.registry).map(\.variant) == .failure(Refusal(.noSuchStream, "no stream named 'other'")))
        let plan = try ClipPlan.plan(stream: "main", query: "start=3.5&end=6&variant=360p", registry: setup.registry).get()
        #expect(plan.segments == ["\(setup.directory)/main/360p/1.ts", "\(setup.directory)/main/360p/2.ts"])
        #expect(plan.start == 1.5 && plan.end == 4)
        #expect(plan.fileName == "main-360p-2027-01-15T08-00-03.500Z-3s.mp4")
        // Without a variant, the best one.
        #expect(try ClipPlan.plan(stream: "main", query: nil, registry: setup.registry).get().variant == "720p")
    }
}
