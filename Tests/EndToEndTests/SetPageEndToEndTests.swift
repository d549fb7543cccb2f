import Foundation
import Testing
import TestSupport

/// The page on an angle set, in headless Chromium from Debian (Tests/Helpers/set_view_check.py),
/// as an analyst sees it: a real server with two test-pattern cameras in one set (`angle_sets`),
/// the page opened on the set, the picker on the set, one tile per angle with the angle's name,
/// every tile playing, a click making a tile large and another putting the grid back, and a
/// marker added through the page reaching every angle's media playlist (issue 33: no
/// end-to-end test served `angle_sets`).
@Suite(.serialized) struct SetPageEndToEndTests {
    static let config = TestLadders.twoRungs + """

        streams:
          - {name: wide, input: testpattern}
          - {name: tv, input: testpattern}
        angle_sets:
          - {name: match, title: Match, streams: [wide, tv]}
        analyst:
          token: set-page-secret-0123456789

        """

    @Test func thePageShowsEveryAnglePlayingAndMarksTheSet() async throws {
        let directory = try makeTemporaryDirectory("set-page")
        try Self.config.write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
        let port = try freePort()
        let server = try SidelineProcess(arguments: ["--config", directory + "/config.yaml", "--host", "127.0.0.1", "--port", String(port),
                                                     "--data-dir", directory + "/data"])
        _ = try await server.waitForURL()
        let base = "http://127.0.0.1:\(port)"
        let playlists = ["wide", "tv"].map { URL(string: base + "/live/\($0)/360p/index.m3u8")! }
        // A few segments in each angle, so each tile has something to play.
        let deadline = Date().addingTimeInterval(60)
        for playlist in playlists {
            while Date() < deadline, String(decoding: (try? await http(playlist).body) ?? Data(), as: UTF8.self).components(separatedBy: ".ts\n").count <= 3 {
                try await Task.sleep(for: .milliseconds(200))
            }
        }

        let label = "Marked on the set"
        let run = try await Command.run("python3", [Repository.root.path + "/Tests/Helpers/set_view_check.py", base + "/", "--set", "match",
                                                    "--token", "set-page-secret-0123456789", "--label", label, "--seconds", "4"], timeout: 180)
        #expect(run.status == 0, "set_view_check.py: \(run.stderr)")
        let report = try #require((try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any], "exited \(run.status): \(run.stdout.suffix(2000)) \(run.stderr.suffix(3000))")
        #expect(report["picked"] as? String == "set:match", "\(report)")
        #expect(report["pickedLabel"] as? String == "▦ Match (2 angles)", "\(report)")
        #expect(report["tiles"] as? Int == 2, "\(report)")
        #expect(report["captions"] as? [String] == ["wide", "tv"], "\(report)")
        #expect(report["syncAngles"] as? [String] == ["wide", "tv"], "sideline.sync(): \(report)")
        // Real time: 4 s of wall clock plays about 4 s in each tile; under load, at least half.
        let advanced = report["advanced"] as? [Double] ?? []
        #expect(advanced.count == 2 && advanced.allSatisfy { $0 >= 2 }, "each tile's video played \(advanced) s in 4 s (other clock steps \(report["jumps"] ?? ""), rejoins \(report["rejoins"] ?? "")); errors \(report["videoErrors"] ?? "")")
        #expect(report["largeAfterClick"] as? Int == 1, "\(report)")
        let classes = report["classesAfterClick"] as? [Any] ?? []
        #expect((classes.first as? String ?? "").contains("large") && ((classes.last as? [String])?[1] ?? "").contains("big"), "\(classes)")
        #expect(report["largeAfterSecondClick"] is NSNull, "\(report)")
        #expect(report["markStatus"] as? Int == 201, "\(report["markBody"] ?? "")")

        // The set's marker reaches both angles' media playlists within a segment or two.
        for playlist in playlists {
            let markDeadline = Date().addingTimeInterval(8)
            var listed = ""
            while Date() < markDeadline {
                listed = String(decoding: try await http(playlist).body, as: UTF8.self)
                if listed.contains("X-LABEL=\"\(label)\"") { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(listed.contains("X-LABEL=\"\(label)\""), "\(playlist.path): \(listed.suffix(600))")
        }
        #expect(try await server.stop() == 0)
    }
}
