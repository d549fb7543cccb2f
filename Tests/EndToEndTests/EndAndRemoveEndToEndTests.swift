import Foundation
import HLSPlaylist
import Testing
import TestSupport

/// The operator ends one stream and removes another with `sideline admin`, against a real
/// server: the ended one answers 200 with EXT-X-ENDLIST, the removed one 410 for every URL,
/// its recording is deleted, and it stays 410 after a restart.
@Suite struct EndAndRemoveEndToEndTests {
    static let token = "operator-token-0123456789"
    static let config = """
        admin:
          token: \(token)
        video:
          ladder:
            - {name: 180p, width: 320, height: 180, bitrate: 200k, preset: ultrafast, profile: baseline}
        streams:
          - {name: north, input: testpattern}
          - {name: south, input: testpattern}
        """

    func admin(_ arguments: [String], port: Int, token: String = Self.token) async throws -> CommandResult {
        try await Command.run(Repository.sidelineExecutable, ["admin"] + arguments + ["--server", "http://127.0.0.1:\(port)", "--token", token], timeout: 30)
    }

    @Test func endOneStreamRemoveAnother() async throws {
        let directory = try makeTemporaryDirectory("end-remove")
        let configPath = directory + "/streams.yaml"
        try Self.config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let arguments = ["--config", configPath, "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data"]
        let server = try SidelineProcess(arguments: arguments)
        let north = try await server.waitForURL()
        let port = try #require(north.port)
        func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }
        let northMedia = url("/live/north/180p/index.m3u8"), southMedia = url("/live/south/180p/index.m3u8")
        _ = try await waitForOK(northMedia, timeout: 60)
        let southFirst = try MediaPlaylist.parse(String(decoding: try await waitForOK(southMedia, timeout: 60).body, as: UTF8.self))
        let southSegment = try #require(southFirst.segments.first).uri

        // A wrong token is refused with a clear message and a non-zero exit.
        let refused = try await admin(["end", "north"], port: port, token: "wrong")
        #expect(refused.status == 2 && refused.stderr.contains("401"), "\(refused.stderr)")

        // End north: EXT-X-ENDLIST, 200 from then on.
        let ended = try await admin(["end", "north"], port: port)
        #expect(ended.status == 0, "\(ended.stderr)")
        var closed: MediaPlaylist?
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let list = try MediaPlaylist.parse(String(decoding: try await waitForOK(northMedia).body, as: UTF8.self))
            if list.endList { closed = list; break }
            try await Task.sleep(for: .milliseconds(300))
        }
        #expect(closed != nil, "north's playlist ends with EXT-X-ENDLIST")
        #expect(try await http(northMedia).headers["cache-control"] == "public, max-age=86400")

        // Remove south: 410 for every URL at once; the recording is deleted behind a tombstone.
        let removed = try await admin(["remove", "south"], port: port)
        #expect(removed.status == 0, "\(removed.stderr)")
        for path in ["/live/south/master.m3u8", "/live/south/180p/index.m3u8", "/live/south/180p/iframes.m3u8", "/live/south/180p/\(southSegment)"] {
            let answer = try await http(url(path))
            #expect(answer.status == 410, "\(path): \(answer.status)")
            #expect(answer.headers["cache-control"] == "public, max-age=3600")
        }
        let southDirectory = directory + "/data/south"
        let gone = Date().addingTimeInterval(30)
        while Date() < gone, (try FileManager.default.contentsOfDirectory(atPath: southDirectory)) != ["removed"] {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: southDirectory) == ["removed"], "only the tombstone is left")
        let api = String(decoding: try await http(url("/api/streams")).body, as: UTF8.self)
        #expect(api.contains("\"removed\"") && api.contains("\"ended\""), "\(api)")
        #expect(try await http(northMedia).status == 200, "the other stream is untouched")
        #expect(try await server.stop(signal: SIGTERM) == 0, "\(server.log)")

        // After a restart, south is still gone, north is served.
        let again = try SidelineProcess(arguments: arguments)
        let restartedPort = try #require(try await again.waitForURL().port)
        #expect(try await http(URL(string: "http://127.0.0.1:\(restartedPort)/live/south/180p/index.m3u8")!).status == 410)
        #expect(try await http(URL(string: "http://127.0.0.1:\(restartedPort)/live/north/180p/index.m3u8")!).status == 200)
        #expect(again.log.contains("was removed by the operator"), "\(again.log)")
        #expect(try await again.stop(signal: SIGTERM) == 0, "\(again.log)")
    }

    /// Retention by age, against a real server: an old recording no configured stream
    /// continues is deleted at start; a stream being encoded is kept however old its
    /// beginning; once it is ended and nothing was written to it for longer than
    /// max_age_hours, it is removed like `sideline admin remove` (410, tombstone).
    @Test func retentionRemovesOldRecordingsButNeverALiveOne() async throws {
        let directory = try makeTemporaryDirectory("retention")
        let data = directory + "/data"
        // An old match, recorded weeks ago and no longer configured.
        try FileManager.default.createDirectory(atPath: data + "/old-match/180p", withIntermediateDirectories: true)
        try "#EXTM3U\n".write(toFile: data + "/old-match/master.m3u8", atomically: true, encoding: .utf8)
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\n000000.ts\n#EXT-X-ENDLIST\n".write(toFile: data + "/old-match/180p/index.m3u8", atomically: true, encoding: .utf8)
        try Data(count: 188).write(to: URL(fileURLWithPath: data + "/old-match/180p/000000.ts"))
        let weeksAgo = Date().addingTimeInterval(-21 * 24 * 3600)
        for path in ["", "/master.m3u8", "/180p", "/180p/index.m3u8", "/180p/000000.ts"] {
            try FileManager.default.setAttributes([.modificationDate: weeksAgo], ofItemAtPath: data + "/old-match" + path)
        }
        let configPath = directory + "/retention.yaml"
        try """
            admin:
              token: \(Self.token)
            retention:
              max_age_hours: 0.001
              check_interval: 1
            video:
              ladder:
                - {name: 180p, width: 320, height: 180, bitrate: 200k, preset: ultrafast, profile: baseline}
            stream:
              input: testpattern
            """.write(toFile: configPath, atomically: true, encoding: .utf8)
        let server = try SidelineProcess(arguments: ["--config", configPath, "--host", "127.0.0.1", "--port", "0", "--data-dir", data])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let master = try await server.waitForURL()
        let port = try #require(master.port)
        let media = URL(string: "http://127.0.0.1:\(port)/live/main/180p/index.m3u8")!
        _ = try await waitForOK(media, timeout: 60)

        var deadline = Date().addingTimeInterval(10)
        while Date() < deadline, FileManager.default.fileExists(atPath: data + "/old-match") { try await Task.sleep(for: .milliseconds(200)) }
        #expect(!FileManager.default.fileExists(atPath: data + "/old-match"), "the old recording is deleted: \(server.log)")
        #expect(!FileManager.default.fileExists(atPath: data + "/old-match/removed"), "no tombstone: the name stays free")

        // Live for longer than max_age_hours (3.6 s): kept, because it is being encoded.
        try await Task.sleep(for: .seconds(5))
        #expect(try await http(media).status == 200)

        // Ended: once nothing was written for 3.6 s, it goes, like an operator's remove.
        #expect(try await admin(["end", "main"], port: port).status == 0)
        var status = 200
        deadline = Date().addingTimeInterval(40)
        while Date() < deadline, status != 410 {
            status = try await http(media).status
            try await Task.sleep(for: .milliseconds(300))
        }
        #expect(status == 410, "\(server.log)")
        #expect(try await http(master).status == 410)
        #expect(FileManager.default.fileExists(atPath: data + "/main/removed"))
        #expect(server.log.contains("retention: nothing written for"), "\(server.log)")
        #expect(try await server.stop(signal: SIGINT) == 0, "\(server.log)")
    }
}
