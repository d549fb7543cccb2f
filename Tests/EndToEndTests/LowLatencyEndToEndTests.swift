import Foundation
import HLSPlaylist
import SidelineTesting
import Testing
import TestSupport

/// Low-Latency HLS on a real server (issue 34), with parts on as they are by default: hls.js 1.6
/// in low-latency mode, in headless Chromium, plays from parts and the preload hint; every
/// playlist it loaded keeps the draft's rules; a segment is exactly its parts byte for byte,
/// each part beginning with the program tables; and the angles of a set cut their parts on
/// one grid. How far behind the camera each player is, precisely, is the benchmark's
/// (Docs/benchmarks.md, "Issue 34"); here only that hls.js is well inside classic HLS's ~7 s.
@Suite(.serialized) struct LowLatencyEndToEndTests {
    static let config = TestLadders.twoRungs + """

        streams:
          - {name: wide, input: testpattern}
          - {name: tv, input: testpattern}
        angle_sets:
          - {name: match, title: Match, streams: [wide, tv]}

        """

    struct Server {
        let process: SidelineProcess
        let base: String
        let directory: String
    }

    static func start() async throws -> Server {
        let directory = try makeTemporaryDirectory("low-latency")
        try config.write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
        let port = try freePort()
        let process = try SidelineProcess(arguments: ["--config", directory + "/config.yaml", "--host", "127.0.0.1", "--port", String(port),
                                                      "--data-dir", directory + "/data"])
        _ = try await process.waitForURL()
        return Server(process: process, base: "http://127.0.0.1:\(port)", directory: directory)
    }

    /// The media playlist once it lists at least `entries` entries and parts of the next.
    static func playlist(_ url: String, entries: Int) async throws -> String {
        var text = ""
        try await eventually("\(url) lists \(entries) entries and parts of the next", timeout: 60, interval: 0.1) {
            text = String(decoding: (try? await http(URL(string: url)!).body) ?? Data(), as: UTF8.self)
            guard let parsed = try? MediaPlaylist.parseLive(text) else { return false }
            return parsed.playlist.segments.count >= entries && parsed.edge?.openParts.isEmpty == false
        }
        return text
    }

    @Test func hlsjsPlaysFromPartsAndEveryPlaylistKeepsTheDraftsRules() async throws {
        let server = try await Self.start()
        defer { _ = Task { try? await server.process.stop() } }
        _ = try await Self.playlist(server.base + "/live/wide/360p/index.m3u8", entries: 2)
        let run = try await Command.run("python3", [Repository.root.path + "/Tests/Helpers/hlsjs_play.py", server.base + "/live/wide/master.m3u8",
                                                    "--hlsjs", Repository.root.path + "/.build-hlsjs/hls.mjs", "--seconds", "20", "--warmup", "8"], timeout: 90)
        let report = try #require((try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any],
                                  "hlsjs_play.py exited \(run.status): \(run.stdout.suffix(2000)) \(run.stderr.suffix(3000))")
        #expect(report["fatal"] is NSNull, "\(report["fatal"] ?? "") \(report["errors"] ?? "")")
        #expect((report["errors"] as? [String])?.isEmpty == true, "no 400, 404 or 503 on the way: \(report["errors"] ?? "")")
        let parts = report["parts"] as? Int ?? 0
        #expect(parts >= 20 && report["fragments"] as? Int == 0, "hls.js loaded \(parts) parts and \(report["fragments"] ?? "") whole segments")
        let latencies = (report["latencies"] as? [Double] ?? []).sorted()
        let median = latencies.isEmpty ? .infinity : latencies[latencies.count / 2]
        #expect(median < 4, "hls.js shows the picture \(median) s after the camera (classic HLS: about 7 s); the benchmark measures it")
        for text in report["playlists"] as? [String] ?? [] {
            // Each playlist reports every rendition but itself: the other rung, and both rungs of
            // the set's other angle.
            let reported = ["../360p/index.m3u8", "../180p/index.m3u8"].filter { text.contains("URI=\"\($0)\"") }
            #expect(reported.count == 1, "one sibling rung reported: \(text.suffix(400))")
            let violations = LowLatencyPlaylistRules.violations(of: text, renditions: reported + ["../../tv/360p/index.m3u8", "../../tv/180p/index.m3u8"])
            #expect(violations.isEmpty, "\(violations)\n\(text.suffix(1200))")
        }
        #expect(try await server.process.stop() == 0)
    }

    /// A segment is its parts one after another, byte for byte; each part begins with the
    /// program tables, the first with the keyframe; the parts in order decode cleanly. Both angles of the set
    /// cut part k of segment n at the same moment: the same durations and the same date.
    @Test func aSegmentIsItsPartsAndTheAnglesShareThePartGrid() async throws {
        let server = try await Self.start()
        defer { _ = Task { try? await server.process.stop() } }
        let wideURL = server.base + "/live/wide/360p/index.m3u8"
        let text = try await Self.playlist(wideURL, entries: 3)
        let parsed = try MediaPlaylist.parseLive(text)
        let edge = try #require(parsed.edge)
        let (sequence, parts) = try #require(edge.listedParts.max { $0.key < $1.key }, "a listed entry with its parts: \(text)")
        let entry = parsed.playlist.segments[sequence - parsed.playlist.mediaSequence]
        #expect(abs(parts.reduce(0) { $0 + $1.duration } - entry.duration) < 0.002, "the parts last as long as their segment: \(parts) \(entry.duration)")
        #expect(parts.map(\.independent) == [true] + Array(repeating: false, count: parts.count - 1))
        let probes = try makeTemporaryDirectory("low-latency-parts")
        var joined = Data()
        for (index, part) in parts.enumerated() {
            let answer = try await http(URL(string: part.uri, relativeTo: URL(string: wideURL))!.absoluteURL)
            #expect(answer.status == 200)
            let bytes = [UInt8](answer.body)
            #expect(bytes.first == 0x47 && bytes.count % 188 == 0, "part \(index) is whole TS packets")
            // PID 0 first: a player that joins at any part reads the program tables before media.
            #expect(bytes.count >= 3 && (Int(bytes[1] & 0x1F) << 8 | Int(bytes[2])) == 0, "part \(index) begins with the PAT")
            if index == 0 {
                let path = probes + "/part0.ts"
                try answer.body.write(to: URL(fileURLWithPath: path))
                #expect(try await FFprobe.packets(path, stream: "v").first?.isKeyframe == true, "the first part begins with the keyframe")
            }
            joined += answer.body
        }
        let segment = try await http(URL(string: entry.uri, relativeTo: URL(string: wideURL))!.absoluteURL)
        #expect(segment.status == 200 && segment.body == joined, "the segment (\(segment.body.count) bytes) is its parts (\(joined.count)) one after another")
        try joined.write(to: URL(fileURLWithPath: probes + "/joined.ts"))
        #expect(try await FFprobe.decodeErrors(probes + "/joined.ts").isEmpty, "the parts, played in order, decode cleanly")

        // The other angle lists the same entry with parts of the same lengths and the same date.
        let tvText = try await Self.playlist(server.base + "/live/tv/360p/index.m3u8", entries: 3)
        let tv = try MediaPlaylist.parseLive(tvText)
        let shared = try #require(Set(edge.listedParts.keys).intersection(tv.edge.map { Array($0.listedParts.keys) } ?? []).max(), "an entry both angles list with parts")
        #expect(edge.listedParts[shared]?.map(\.duration) == tv.edge?.listedParts[shared]?.map(\.duration), "part k of segment n lasts as long in both angles")
        let wideDate = parsed.playlist.segments[shared - parsed.playlist.mediaSequence].programDateTime
        let tvDate = tv.playlist.segments[shared - tv.playlist.mediaSequence].programDateTime
        #expect(wideDate != nil && wideDate == tvDate, "segment \(shared) is the same moment in both angles: \(String(describing: wideDate)) \(String(describing: tvDate))")
        #expect(text.contains("#EXT-X-RENDITION-REPORT:URI=\"../../tv/360p/index.m3u8\""), "the set's other angle is reported")
        #expect(try await server.process.stop() == 0)
    }
}
