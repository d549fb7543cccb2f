import Foundation
import HLSPlaylist
import Testing
import TestSupport

/// Several cameras in one server: each stream of the config gets its own pipeline, ladder,
/// recording and URLs, and `/api/streams` lists them all.
@Suite struct MultiStreamEndToEndTests {
    /// Two cheap streams: the sample on one small rung, the test pattern on a two-rung ladder of its own.
    static func config(firstInput: String) -> String {
        """
        video:
          ladder:
            - {name: 360p, width: 640, height: 360, bitrate: 600k, preset: ultrafast, profile: main}
        streams:
          - name: north
            input: \(firstInput)
            title: North stand
          - name: pattern
            input: testpattern
            title: Test card
            video:
              frame_rate: 25
              ladder:
                - {name: 240p, width: 426, height: 240, bitrate: 400k, preset: ultrafast, profile: main}
                - {name: 144p, width: 256, height: 144, bitrate: 150k, preset: ultrafast, profile: baseline}
        """
    }

    @Test func eachStreamIsEncodedAndServedOnItsOwn() async throws {
        let directory = try makeTemporaryDirectory("multi")
        let configPath = directory + "/streams.yaml"
        try Self.config(firstInput: Repository.sample).write(toFile: configPath, atomically: true, encoding: .utf8)
        let server = try SidelineProcess(arguments: ["--config", configPath, "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data"])
        let north = try await server.waitForURL()
        #expect(north.path == "/live/north/master.m3u8", "the first announced stream is the first of the config")
        #expect(server.log.contains("Open: http://127.0.0.1:\(north.port!)/live/pattern/master.m3u8"), "\(server.log)")
        let pattern = URL(string: "/live/pattern/master.m3u8", relativeTo: north)!.absoluteURL

        let northMaster = String(decoding: try await waitForOK(north, timeout: 60).body, as: UTF8.self)
        let patternMaster = String(decoding: try await waitForOK(pattern, timeout: 60).body, as: UTF8.self)
        #expect(northMaster.contains("RESOLUTION=640x360") && northMaster.contains("FRAME-RATE=30.000"))
        #expect(!northMaster.contains("240p"))
        #expect(patternMaster.contains("\n240p/index.m3u8\n") && patternMaster.contains("\n144p/index.m3u8"))
        #expect(patternMaster.contains("FRAME-RATE=25.000") && patternMaster.contains("RESOLUTION=256x144"))
        #expect(patternMaster.contains("VALUE=\"Test card\"") && northMaster.contains("VALUE=\"North stand\""))

        for media in ["north/360p", "pattern/240p", "pattern/144p"] {
            let url = URL(string: "/live/\(media)/index.m3u8", relativeTo: north)!.absoluteURL
            let playlist = try MediaPlaylist.parse(String(decoding: try await waitForOK(url).body, as: UTF8.self))
            let first = try #require(playlist.segments.first, "\(media) has a segment")
            let segment = try await http(url.deletingLastPathComponent().appendingPathComponent(first.uri))
            #expect(segment.status == 200 && segment.headers["content-type"] == "video/mp2t", "\(media)")
        }

        let api = try await http(URL(string: "/api/streams", relativeTo: north)!.absoluteURL)
        let listing = try #require(try JSONSerialization.jsonObject(with: api.body) as? [String: Any])
        let streams = try #require(listing["streams"] as? [[String: Any]])
        #expect(Set(streams.compactMap { $0["id"] as? String }) == ["north", "pattern"])
        let patternEntry = try #require(streams.first { $0["id"] as? String == "pattern" })
        #expect(patternEntry["title"] as? String == "Test card")
        #expect(patternEntry["state"] as? String == "live")
        let patternVariants = try #require(patternEntry["variants"] as? [[String: Any]])
        #expect(Set(patternVariants.compactMap { $0["name"] as? String }) == ["240p", "144p"])

        #expect(try await server.stop(signal: SIGINT) == 0, "\(server.log)")
        for stream in ["north/360p", "pattern/240p", "pattern/144p"] {
            let onDisk = try MediaPlaylist.parse(try String(contentsOfFile: directory + "/data/\(stream)/index.m3u8", encoding: .utf8))
            #expect(onDisk.endList, "Ctrl-C ends every stream: \(stream)")
        }
    }

    @Test func oneBadCameraStopsTheStartAndNothingIsWritten() async throws {
        let directory = try makeTemporaryDirectory("multi-bad")
        let configPath = directory + "/streams.yaml"
        try Self.config(firstInput: "/nonexistent/north.mp4").write(toFile: configPath, atomically: true, encoding: .utf8)
        let result = try await Command.run(Repository.sidelineExecutable, ["serve", "--config", configPath, "--port", "0", "--data-dir", directory + "/data"], timeout: 60)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("stream 'north'") && result.stderr.contains("/nonexistent/north.mp4"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/data"), "no stream's recording was started")
    }

    @Test func inputFlagIsRefusedWhenTheConfigHasSeveralStreams() async throws {
        let directory = try makeTemporaryDirectory("multi-flag")
        let configPath = directory + "/streams.yaml"
        try Self.config(firstInput: Repository.sample).write(toFile: configPath, atomically: true, encoding: .utf8)
        let result = try await Command.run(Repository.sidelineExecutable, ["serve", "--config", configPath, "--input", "testpattern", "--port", "0"], timeout: 30)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--input") && result.stderr.contains("north, pattern"), "\(result.stderr)")
    }
}
