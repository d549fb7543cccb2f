import Foundation
import HLSOrigin
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import OriginAPI
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineTesting
import Synchronization
import Testing

/// `GET /api/sets/{set}/clip.zip` over real HTTP on 127.0.0.1, with a maker that writes files
/// of the planned size instead of remuxing and packs them by concatenation (the real remux and
/// ZIP: StreamServicesTests' SetClipZipTests): every angle is cut, from the same entries; the
/// refusals (unknown set, bad range, too long, an angle with nothing recorded) name what is
/// wrong; a set clip is one clip in progress and leaves no scratch file.
@Suite struct SetClipHTTPTests {
    final class PackingMaker: ClipMaking {
        let bounds: ClipBounds
        let cuts = Mutex<[[String]]>([])
        init(bounds: ClipBounds = ClipBounds()) { self.bounds = bounds }

        func makeClip(segments: [String], start: Double, end: Double, into path: String) async throws -> ClipMade {
            cuts.withLock { $0.append(segments) }
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path, contents: Data(segments.joined(separator: "\n").utf8))
            return ClipMade(duration: end - start, snappedBy: start.truncatingRemainder(dividingBy: 2), bytes: 1)
        }

        func makeArchive(_ entries: [ArchiveEntry], into path: String) async throws -> Int {
            let text = entries.map { "\($0.name): " + ((try? String(contentsOfFile: $0.path, encoding: .utf8)) ?? "?") }.joined(separator: "\n")
            for entry in entries { unlink(entry.path) }
            _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            return text.utf8.count
        }
    }

    /// Set "match": "wide" has entries 0-3 from the start, "goal" started a slot later (its
    /// entries 0-2 are slots 1-3). Set "dark": "wide" and "unlit", which recorded nothing.
    static func withServer(_ maker: PackingMaker, _ body: @Sendable (any TestClientProtocol, String) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "set-clips-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let registry = StreamRegistry(clock: { 0 }, angleSets: [.init(name: "match", streams: ["wide", "goal"], segmentDuration: 2),
                                                               .init(name: "dark", streams: ["wide", "unlit"], segmentDuration: 2)])
        registry.apply(.register(stream: "unlit", variants: ["720p"], targetDuration: 2))
        for (angle, late) in [("wide", 0), ("goal", 1)] {
            registry.apply(.register(stream: angle, variants: ["720p"], targetDuration: 2))
            for n in 0..<(4 - late) {
                var playlist = TestPlaylists.live(count: n + 1 + late)
                playlist = LiveMediaPlaylist(MediaPlaylist(targetDuration: 2, mediaSequence: late, segments: Array(playlist.playlist.segments.dropFirst(late))))
                registry.apply(.publish(.init(.segment(String(format: "%06d.ts", n + late), file: .init(path: "\(directory)/\(angle)/slot\(n + late).ts", size: 1000, duration: 2)),
                    stream: angle, variant: "720p", playlist: playlist)))
            }
        }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger,
                                               routes: [{ ClipRoutes(registry: registry, maker: maker, dataDirectory: directory).add(to: $0) }])
        try await app.test(.live) { client in try await body(client, directory + "/.clips") }
    }

    @Test func everyAngleIsCutFromTheSameSlots() async throws {
        let maker = PackingMaker()
        try await Self.withServer(maker) { client, scratch in
            // Seconds count from the default angle's recording: 2.5-5.5 s is slots 1 and 2,
            // which are goal's first two entries.
            try await client.execute(uri: "/api/sets/match/clip.zip?start=2.5&end=5.5", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/zip")
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"match-2027-01-15T08-00-02.500Z-3s.zip\"")
                #expect(response.headers[HTTPField.Name("X-Clip-Start")!] == "2027-01-15T08:00:02.000Z")
                let text = String(buffer: response.body)
                #expect(text.contains("match-wide.mp4: ") && text.contains("match-goal.mp4: "), "\(text)")
            }
            let cuts = maker.cuts.withLock { $0 }
            #expect(cuts.map { $0.map { ($0 as NSString).lastPathComponent } } == [["slot1.ts", "slot2.ts"], ["slot1.ts", "slot2.ts"]])
            #expect(cuts.map { $0.map { ($0 as NSString).deletingLastPathComponent.hasSuffix("goal") } } == [[false, false], [true, true]])
            try await client.execute(uri: "/api/sets/match/clip.zip?start=2&end=4", method: .head) { response in
                #expect(response.status == .ok && response.headers[.contentDisposition]?.hasSuffix(".zip\"") == true)
            }
            #expect(maker.cuts.withLock { $0.count } == 2, "HEAD makes nothing")
            #expect(try await ClipBoundsHTTPTests.eventually { ClipBoundsHTTPTests.scratchFiles(scratch).isEmpty }, "\(ClipBoundsHTTPTests.scratchFiles(scratch))")
        }
    }

    @Test(arguments: [
        ("/api/sets/nope/clip.zip?start=0&end=2", 404, "no angle set named 'nope'"),
        ("/api/sets/match/clip.zip?start=later&end=2", 400, "start must be"),
        ("/api/sets/match/clip.zip?start=6&end=2", 400, "end must be after start"),
        ("/api/sets/match/clip.zip?start=0&end=8", 400, "clips.max_duration"),
        ("/api/sets/match/clip.zip?variant=360p", 404, "angle 'wide': stream 'wide' has no variant '360p'"),
        ("/api/sets/dark/clip.zip?start=0&end=2", 404, "angle 'unlit'"),
    ])
    func refusalsNameWhatIsWrong(uri: String, status: Int, reason: String) async throws {
        let maker = PackingMaker(bounds: ClipBounds(maxDuration: 6))
        try await Self.withServer(maker) { client, _ in
            try await client.execute(uri: uri, method: .get) { response in
                #expect(Int(response.status.code) == status)
                #expect(String(buffer: response.body).contains(reason), "\(String(buffer: response.body))")
            }
        }
        #expect(maker.cuts.withLock { $0.isEmpty })
    }

    @Test func aSetClipIsOneClipInProgress() async throws {
        // Room for one clip at a time: the set's two angles are made under one reservation.
        let maker = PackingMaker(bounds: ClipBounds(maxInProgress: 1))
        try await Self.withServer(maker) { client, _ in
            try await client.execute(uri: "/api/sets/match/clip.zip?start=2&end=4", method: .get) { response in
                #expect(response.status == .ok)
            }
            #expect(maker.cuts.withLock { $0.count } == 2)
        }
        // Scratch for twice the angles' segments: 2 angles x 1 entry x 1,000 bytes x 2 > 3,000.
        let small = PackingMaker(bounds: ClipBounds(scratchLimitBytes: 3000))
        try await Self.withServer(small) { client, _ in
            try await client.execute(uri: "/api/sets/match/clip.zip?start=2&end=4", method: .get) { response in
                #expect(response.status == .badRequest && String(buffer: response.body).contains("scratch"))
            }
        }
    }
}
