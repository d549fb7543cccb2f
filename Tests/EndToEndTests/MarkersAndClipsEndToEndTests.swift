import Foundation
import HLSPlaylist
import Testing
import TestSupport

/// Markers and clips on a real `sideline serve`: a marker is in every variant's playlist within
/// a segment, survives a restart (live and VOD), and goes when deleted; a clip's duration and
/// first keyframe as ffprobe reads them; bad clip requests answered with their reason; and
/// `sideline export` of the same range from the data directory.
@Suite(.serialized) struct MarkersAndClipsEndToEndTests {
    static let config = TestLadders.twoRungs + """

        analyst:
          token: analyst-secret-0123456789
        admin:
          token: admin-secret-0123456789
        """

    struct Server {
        let process: SidelineProcess
        let base: String

        func url(_ path: String) -> URL { URL(string: base + path)! }

        func text(_ path: String) async throws -> String {
            let answer = try await http(url(path))
            return String(decoding: answer.body, as: UTF8.self)
        }

        func post(_ body: String, token: String?) async throws -> HTTPResult {
            try await http(url("/api/streams/main/markers"), method: "POST", body: body,
                           headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
        }
    }

    func start(_ directory: String, port: Int) async throws -> Server {
        let process = try SidelineProcess(arguments: ["--config", directory + "/config.yaml", "--host", "127.0.0.1", "--port", String(port),
                                                      "--data-dir", directory + "/data"])
        _ = try await process.waitForURL()
        return Server(process: process, base: "http://127.0.0.1:\(port)")
    }

    /// Polls until every variant's media playlist satisfies `condition`.
    func waitForPlaylists(_ server: Server, timeout: Double = 10, _ what: String, _ condition: (String) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            var all = true
            for variant in ["360p", "180p"] {
                last = (try? await server.text("/live/main/\(variant)/index.m3u8")) ?? ""
                if !condition(last) { all = false }
            }
            if all { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        Issue.record("playlists not \(what) within \(timeout) s; last:\n\(last)")
    }

    @Test func markersReachEveryPlaylistSurviveARestartAndGoWhenDeleted() async throws {
        let directory = try makeTemporaryDirectory("markers")
        try Self.config.write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
        let port = try freePort()
        var server = try await start(directory, port: port)
        try await waitForPlaylists(server, timeout: 60, "three entries long") { $0.components(separatedBy: ".ts\n").count > 3 }

        // Writing needs a token; a bad field is a 400 that names it.
        #expect(try await server.post(#"{"label": "x"}"#, token: nil).status == 401)
        #expect(try await server.post(#"{"label": "x"}"#, token: "wrong").status == 401)
        let bad = try await server.post(#"{"label": "x", "time": "2001-01-01T00:00:00Z"}"#, token: "analyst-secret-0123456789")
        #expect(bad.status == 400 && String(decoding: bad.body, as: UTF8.self).hasPrefix("time: "))

        let kept = try await server.post(#"{"label": "Try, 23rd minute", "time": "now", "lead": 2, "author": "Sam"}"#, token: "analyst-secret-0123456789")
        #expect(kept.status == 201, "\(String(decoding: kept.body, as: UTF8.self))")
        let keptID = try #require(try JSONSerialization.jsonObject(with: kept.body) as? [String: Any])["id"] as? String
        let gone = try await server.post(#"{"label": "Offside?"}"#, token: "admin-secret-0123456789")
        #expect(gone.status == 201)
        let goneID = try #require(try JSONSerialization.jsonObject(with: gone.body) as? [String: Any])["id"] as? String
        let keptID2 = try #require(keptID), goneID2 = try #require(goneID)
        // Within a segment (2 s) both are in every variant's playlist.
        try await waitForPlaylists(server, timeout: 6, "listing both markers") { $0.contains("ID=\"\(keptID2)\"") && $0.contains("ID=\"\(goneID2)\"") }
        let line = try await server.text("/live/main/360p/index.m3u8").split(separator: "\n").first { $0.contains(keptID2) }.map(String.init)
        #expect(line?.contains("CLASS=\"com.sideline.marker\"") == true && line?.contains("X-LABEL=\"Try, 23rd minute\"") == true
            && line?.contains("X-AUTHOR=\"Sam\"") == true)

        let deleted = try await http(server.url("/api/streams/main/markers/\(goneID2)"), method: "DELETE", headers: ["Authorization": "Bearer analyst-secret-0123456789"])
        #expect(deleted.status == 204)
        #expect(try await http(server.url("/api/streams/main/markers/\(goneID2)"), method: "DELETE", headers: ["Authorization": "Bearer analyst-secret-0123456789"]).status == 404)
        try await waitForPlaylists(server, timeout: 4, "without the deleted marker") { !$0.contains(goneID2) && $0.contains(keptID2) }

        // A restart (SIGTERM keeps the recording open) serves the marker at once, live and VOD.
        #expect(try await server.process.stop(signal: SIGTERM) == 0)
        server = try await start(directory, port: port)
        let live = try await server.text("/live/main/180p/index.m3u8")
        #expect(live.contains("ID=\"\(keptID2)\"") && !live.contains(goneID2), "\(live)")
        let listed = try JSONSerialization.jsonObject(with: try await http(server.url("/api/streams/main/markers")).body) as? [String: Any]
        let markers = listed?["markers"] as? [[String: Any]] ?? []
        #expect(markers.map { $0["id"] as? String } == [keptID2])
        let offset = try #require(markers.first?["offset"] as? Double)
        // In the VOD rendition the marker stands just before the entry that holds its moment.
        let vodText = try await server.text("/vod/main/360p/index.m3u8")
        let vod = try MediaPlaylist.parse(vodText)
        let holder = try #require(vod.segments.firstIndex { $0.dateRanges.contains { $0.id == keptID2 } })
        let before = vod.segments[..<holder].reduce(0) { $0 + $1.duration }
        #expect(before <= offset && offset < before + vod.segments[holder].duration, "marker at \(offset) s placed before the entry at \(before) s")
        #expect(try await server.process.stop() == 0)
    }

    @Test func clipsAreRemuxedFromTheSegmentsAndSayWhereTheyStart() async throws {
        let directory = try makeTemporaryDirectory("clips")
        try Self.config.write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
        let server = try await start(directory, port: try freePort())
        try await waitForPlaylists(server, timeout: 60, "six entries long") { $0.components(separatedBy: ".ts\n").count > 6 }

        // 3.3 s lies inside the second 2 s segment: the clip starts on its keyframe at 2 s.
        let answer = try await http(server.url("/api/streams/main/clip.mp4?start=3.3&end=9&variant=180p"))
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"] == "video/mp4")
        #expect(answer.headers["content-disposition"]?.hasPrefix("attachment; filename=\"main-180p-") == true)
        #expect(answer.headers["x-clip-snapped-by"] == "1.300")
        let path = directory + "/clip.mp4"
        try answer.body.write(to: URL(fileURLWithPath: path))
        let video = try await FFprobe.packets(path, stream: "v")
        #expect(video.first?.isKeyframe == true && video.first?.pts == 0)
        // 2 s to 9 s at 30 fps: 210 frames, the last starting before 9 s.
        #expect(video.count == 210, "\(video.count) video packets")
        // Every AAC frame of those 7 s (48 kHz, 1024 samples a frame): a TS packet carries
        // several, and each must become its own MP4 sample.
        let audio = try await FFprobe.packets(path, stream: "a")
        #expect(abs(audio.count - 328) <= 2, "\(audio.count) audio packets")
        let duration = try await Command.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        #expect(abs((Double(duration.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 7) < 0.05, "\(duration.stdout)")
        #expect(try await FFprobe.decodeErrors(path) == "")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/data/.clips").isEmpty, "the temporary MP4 is gone once sent")

        // Bad requests: the status and the reason.
        for (query, status, reason) in [("start=9&end=3", 400, "end must be after start"), ("start=99999", 400, "outside the recording"),
                                        ("variant=4k", 404, "has no variant '4k'"), ("start=soon", 400, "start must be a program date-time")] {
            let refused = try await http(server.url("/api/streams/main/clip.mp4?" + query))
            #expect(refused.status == status && String(decoding: refused.body, as: UTF8.self).contains(reason), "\(query): \(refused.status)")
        }
        #expect(try await http(server.url("/api/streams/other/clip.mp4")).status == 404)
        #expect(try await server.process.stop() == 0)

        // The same range from the data directory on the command line, without a server.
        let exported = directory + "/exported.mp4"
        let run = try await Command.run(Repository.sidelineExecutable, ["export", "main", "--data-dir", directory + "/data", "--variant", "180p",
                                                                          "--start", "3.3", "--end", "9", "-o", exported])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("starts 1.300 s before the asked start"), "\(run.stdout)")
        #expect(try await FFprobe.packets(exported, stream: "v").count == 210)
        let refused = try await Command.run(Repository.sidelineExecutable, ["export", "main", "--data-dir", directory + "/data", "--variant", "4k"])
        #expect(refused.status != 0 && refused.stderr.contains("no recorded variant '4k'"), "\(refused.stderr)")
    }
}
