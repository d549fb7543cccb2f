import Foundation
@testable import HLSOrigin
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationCompat
@testable import OriginAPI
import OriginPolicy
import OriginRegistry
import OriginState
import SegmentStore
import SidelineTesting
import Testing

/// An angle set's markers over real HTTP on 127.0.0.1: one POST marks every angle (one id, one
/// moment) in every angle's playlist and `markers.json`; GET lists the default angle's; DELETE
/// takes it from every angle; an unknown set is 404, a removed angle 409 and a failed write 500,
/// and none of them leaves a half-marked set.
@Suite struct SetMarkerHTTPTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let angles = ["wide", "broadcast", "goal"]

    struct Setup {
        let registry: StreamRegistry
        let directory: String
        let book: MarkerBook
    }

    /// Three angles of four 2 s entries from `start` each; the wall clock stands 9 s after it.
    func setup() throws -> Setup {
        let directory = NSTemporaryDirectory() + "set-markers-\(UUID().uuidString)"
        let registry = StreamRegistry(clock: { 0 }, angleSets: [.init(name: "match", streams: Self.angles, segmentDuration: 2)])
        for angle in Self.angles {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(angle)", withIntermediateDirectories: true)
            registry.apply(.register(stream: angle, variants: ["720p"], targetDuration: 2))
            for n in 0..<4 {
                registry.apply(.publish(.init(.segment(String(format: "%06d.ts", n), file: .init(path: "\(directory)/\(angle)/720p/\(n).ts", size: 188, duration: 2)),
                    stream: angle, variant: "720p", playlist: TestPlaylists.live(count: n + 1))))
            }
        }
        return Setup(registry: registry, directory: directory, book: MarkerBook(registry: registry, dataDirectory: directory, wallClock: { Self.start.addingTimeInterval(9) }))
    }

    func app(_ setup: Setup) -> some ApplicationProtocol {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return OriginServer.makeApplication(registry: setup.registry, host: "127.0.0.1", port: 0, logger: logger,
                                            routes: [{ MarkerRoutes(registry: setup.registry, book: setup.book, analystToken: "a-token", adminToken: "admin-token").add(to: $0) }])
    }

    func playlist(_ setup: Setup, _ angle: String) -> String {
        setup.registry.playlistText(stream: angle, variant: "720p") ?? ""
    }

    func kept(_ setup: Setup, _ angle: String) -> String {
        (try? String(contentsOfFile: "\(setup.directory)/\(angle)/markers.json", encoding: .utf8)) ?? ""
    }

    static let token: HTTPFields = [.authorization: "Bearer a-token"]

    @Test func oneRequestMarksEveryAngle() async throws {
        let setup = try setup()
        defer { try? FileManager.default.removeItem(atPath: setup.directory) }
        try await app(setup).test(.live) { client in
            let body = ByteBuffer(string: #"{"label": "Try", "time": "now", "lead": 4}"#)
            try await client.execute(uri: "/api/sets/match/markers", method: .post, body: body) { response in
                #expect(response.status == .unauthorized)
            }
            var id = ""
            try await client.execute(uri: "/api/sets/match/markers", method: .post, headers: Self.token, body: body) { response in
                #expect(response.status == .created)
                let marker = try MarkerFile.decoder.decode(Marker.self, from: Data(buffer: response.body))
                #expect(marker.time == Self.start.addingTimeInterval(5))
                #expect(response.headers[.location] == "/api/sets/match/markers/\(marker.id)")
                id = marker.id
            }
            for angle in Self.angles {
                let markers = setup.registry.stream(named: angle)?.markers ?? []
                #expect(markers.map(\.id) == [id] && markers.map(\.time) == [Self.start.addingTimeInterval(5)] && markers.map(\.label) == ["Try"], "\(angle)")
                #expect(playlist(setup, angle).contains("#EXT-X-DATERANGE:ID=\"\(id)\""), "\(angle)")
                #expect(kept(setup, angle).contains(id), "\(angle)")
            }
            try await client.execute(uri: "/api/sets/match/markers", method: .get) { response in
                #expect(response.status == .ok)
                let text = String(buffer: response.body)
                #expect(text.contains("\"set\" : \"match\"") && text.contains("\"stream\" : \"wide\"") && text.contains("\"offset\" : 5,") && text.contains(id), "\(text)")
            }
            // A stream's own marker stays on its stream.
            try await client.execute(uri: "/api/streams/goal/markers", method: .post, headers: Self.token, body: ByteBuffer(string: #"{"label": "Goal only"}"#)) { response in
                #expect(response.status == .created)
            }
            #expect(!playlist(setup, "wide").contains("Goal only") && playlist(setup, "goal").contains("Goal only"))
            try await client.execute(uri: "/api/sets/match/markers/\(id)", method: .delete, headers: Self.token) { response in
                #expect(response.status == .noContent)
            }
            for angle in Self.angles {
                #expect(!playlist(setup, angle).contains(id) && !kept(setup, angle).contains(id), "\(angle)")
            }
            #expect(playlist(setup, "goal").contains("Goal only"))
            try await client.execute(uri: "/api/sets/match/markers/\(id)", method: .delete, headers: Self.token) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func refusalsLeaveNoAngleMarked() async throws {
        let setup = try setup()
        defer { try? FileManager.default.removeItem(atPath: setup.directory) }
        try await app(setup).test(.live) { client in
            let post = { (uri: String, body: String) in
                try await client.execute(uri: uri, method: .post, headers: Self.token, body: ByteBuffer(string: body)) { response in
                    (response.status.code, String(buffer: response.body))
                }
            }
            // An unknown set: 404 on every route.
            #expect(try await post("/api/sets/nope/markers", #"{"label": "Try"}"#).0 == 404)
            try await client.execute(uri: "/api/sets/nope/markers", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/sets/nope/markers/m-1", method: .delete, headers: Self.token) { #expect($0.status == .notFound) }
            // A bad body or a moment outside the set's recording: 400, as for one stream.
            #expect(try await post("/api/sets/match/markers", #"{"lable": "Try"}"#).0 == 400)
            let outside = try await post("/api/sets/match/markers", #"{"label": "Try", "time": "2020-01-01T00:00:00Z"}"#)
            #expect(outside.0 == 400 && outside.1.contains("outside the recording"), "\(outside.1)")
            // One angle's file cannot be written (its directory is a file): 500, and the
            // angles already written are put back.
            try FileManager.default.removeItem(atPath: setup.directory + "/goal")
            #expect(FileManager.default.createFile(atPath: setup.directory + "/goal", contents: Data()), "a file where the angle's directory was")
            let failed = try await post("/api/sets/match/markers", #"{"label": "Try"}"#)
            #expect(failed.0 == 500 && failed.1.contains("angle 'goal'"), "\(failed.1)")
            // A removed angle: 409 naming it.
            setup.registry.apply(.phase(stream: "broadcast", .removed))
            let removed = try await post("/api/sets/match/markers", #"{"label": "Try"}"#)
            #expect(removed.0 == 409 && removed.1.contains("'broadcast'"), "\(removed.1)")
        }
        for angle in Self.angles {
            #expect(setup.registry.stream(named: angle)?.markers.isEmpty == true, "\(angle)")
            #expect(!playlist(setup, angle).contains("#EXT-X-DATERANGE"), "\(angle)")
            #expect(!kept(setup, angle).contains("Try"), "\(angle)")
        }
    }
}
