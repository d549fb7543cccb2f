import Foundation
import Testing
import TestSupport

/// What a pushed stream may make the server keep, on a real `sideline serve` with segments
/// ffmpeg made: received segments no playlist lists are bounded (`ingest.max_pending_segments`:
/// 503 until a playlist lists them), and a full disk is answered 507, logged, with no torn file.
@Suite(.serialized) struct IngestBoundsEndToEndTests {
    static let token = IngestEndToEndTests.token
    static let authorized = ["Authorization": "Bearer \(token)"]

    static func config(pending: Int) -> String {
        """
        \(TestLadders.twoRungs)
        ingest:
          max_pending_segments: \(pending)
        streams:
          - name: field
            ingest_token: \(token)
        """
    }

    /// Three 2 s segments of the 360p rung and its playlist, as an encoder in the field makes them.
    static func segments() async throws -> (segments: [[UInt8]], playlist: String) {
        let made = try makeTemporaryDirectory("ingest-bounds-made")
        let encode = try await Command.run("ffmpeg", IngestEndToEndTests.ladderArguments(seconds: 6, realtime: false) + [
            "-hls_segment_filename", "\(made)/%v/seg%d.ts", "\(made)/%v/index.m3u8",
        ], timeout: 120)
        #expect(encode.status == 0, "\(encode.stderr)")
        let segments = try (0..<3).map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(made)/360p/seg\($0).ts"))) }
        return (segments, try String(contentsOfFile: "\(made)/360p/index.m3u8", encoding: .utf8))
    }

    static func start(_ directory: String, pending: Int) async throws -> (SidelineProcess, URL) {
        try config(pending: pending).write(toFile: directory + "/ingest.yaml", atomically: true, encoding: .utf8)
        let process = try SidelineProcess(arguments: ["--config", directory + "/ingest.yaml", "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data"])
        return (process, URL(string: "/", relativeTo: try await process.waitForURL())!.absoluteURL)
    }

    @Test func receivedSegmentsNoPlaylistListsAreBounded() async throws {
        let (segments, playlist) = try await Self.segments()
        let directory = try makeTemporaryDirectory("ingest-pending")
        let (server, base) = try await Self.start(directory, pending: 2)
        func put(_ name: String, _ bytes: [UInt8]) async throws -> HTTPResult {
            try await http(URL(string: "/ingest/field/360p/\(name)", relativeTo: base)!.absoluteURL, method: "PUT", bytes: bytes, headers: Self.authorized)
        }
        #expect(try await put("seg0.ts", segments[0]).status == 201)
        #expect(try await put("seg1.ts", segments[1]).status == 201)
        let third = try await put("seg2.ts", segments[2])
        #expect(third.status == 503 && third.headers["retry-after"] == "2", "\(third.status)")
        #expect(String(decoding: third.body, as: UTF8.self).contains("ingest.max_pending_segments"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/data/field/ingest/360p/seg2.ts"), "nothing refused is kept")
        #expect(try await put("seg1.ts", segments[1]).status == 200, "a retried upload of a pending name takes no more room")
        // The playlist that lists them frees the room.
        let firstTwo = try #require(playlist.range(of: "seg1.ts\n")).upperBound
        let listed = try await http(URL(string: "/ingest/field/360p/index.m3u8", relativeTo: base)!.absoluteURL, method: "PUT", body: String(playlist[..<firstTwo]), headers: Self.authorized)
        #expect(listed.status == 200)
        #expect(try await put("seg2.ts", segments[2]).status == 201)
        #expect(try await server.stop(signal: SIGTERM) == 0, "\(server.log)")
    }

    /// Needs root to mount a small tmpfs as the data directory (a full disk on demand).
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func aFullDiskIsAnswered507AndLeavesNoTornFile() async throws {
        let (segments, _) = try await Self.segments()
        let directory = try makeTemporaryDirectory("ingest-full")
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        let mounted = try await Command.run("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", directory + "/data"], timeout: 10)
        try #require(mounted.status == 0, "\(mounted.stderr)")
        defer { _ = try? Process.run(URL(fileURLWithPath: "/bin/umount"), arguments: ["-l", directory + "/data"]).waitUntilExit() }
        let (server, base) = try await Self.start(directory, pending: 64)
        // Fill the disk but for a few KiB: less than one segment.
        var free = statvfs()
        statvfs(directory + "/data", &free)
        let room = Int(free.f_bavail) * Int(free.f_frsize)
        _ = FileManager.default.createFile(atPath: directory + "/data/filler", contents: Data(count: max(0, room - 8192)))
        let full = try await http(URL(string: "/ingest/field/360p/seg0.ts", relativeTo: base)!.absoluteURL, method: "PUT", bytes: segments[0], headers: Self.authorized)
        #expect(full.status == 507, "\(full.status): \(String(decoding: full.body, as: UTF8.self))")
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/data/field/ingest/360p")) ?? []
        #expect(kept.isEmpty, "no torn segment and no temporary file left: \(kept)")
        #expect(server.log.contains("pushed segment not kept"), "logged")
        // Room again: the same upload is taken.
        try FileManager.default.removeItem(atPath: directory + "/data/filler")
        #expect(try await http(URL(string: "/ingest/field/360p/seg0.ts", relativeTo: base)!.absoluteURL, method: "PUT", bytes: segments[0], headers: Self.authorized).status == 201)
        #expect(try await server.stop(signal: SIGTERM) == 0, "\(server.log)")
    }
}
