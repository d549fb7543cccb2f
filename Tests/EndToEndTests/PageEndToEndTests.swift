import Foundation
import Testing
import TestSupport

/// The page at `/` in headless Chromium from Debian (Tests/Helpers/page_check.py drives it over the
/// DevTools protocol): it loads, its video plays with the browser's own HLS (currentTime
/// advances), a seek back to the start of the recording plays from there, a marker added through the page appears in the media playlists, and a clip
/// downloaded through its clip link is an MP4 that ffprobe accepts.
@Suite(.serialized) struct PageEndToEndTests {
    @Test func thePagePlaysMarksAndDownloadsAClip() async throws {
        let directory = try makeTemporaryDirectory("page")
        try (TestLadders.twoRungs + "\nanalyst:\n  token: page-secret-0123456789\n").write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
        let port = try freePort()
        let server = try SidelineProcess(arguments: ["--config", directory + "/config.yaml", "--host", "127.0.0.1", "--port", String(port),
                                                     "--data-dir", directory + "/data"])
        _ = try await server.waitForURL()
        let base = "http://127.0.0.1:\(port)"
        let media = URL(string: base + "/live/main/360p/index.m3u8")!
        // Ten seconds recorded, so the page's 2-8 s clip exists.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, String(decoding: (try? await http(media).body) ?? Data(), as: UTF8.self).components(separatedBy: ".ts\n").count <= 5 {
            try await Task.sleep(for: .milliseconds(200))
        }

        let downloads = try makeTemporaryDirectory("page-downloads")
        let label = "Marked from the page"
        let run = try await Command.run("python3", [Repository.root.path + "/Tests/Helpers/page_check.py", base + "/", "--token", "page-secret-0123456789",
                                                    "--label", label, "--downloads", downloads, "--seconds", "6"], timeout: 180)
        #expect(run.status == 0, "page_check.py: \(run.stderr)")
        let report = try #require((try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any], "exited \(run.status): \(run.stdout.suffix(2000)) \(run.stderr.suffix(3000))")
        #expect(report["title"] as? String == "Sideline")
        #expect((report["nativeHLS"] as? String ?? "").isEmpty == false, "Chromium plays HLS natively")
        // Real time: 6 s of wall clock should play about 6 s; under load, at least half.
        let played = report["played"] as? Double ?? 0
        #expect(played >= 3, "the video advanced \(played) s in 6 s (\(report["currentTime"] ?? "")); error: \(report["videoError"] ?? "none")")
        // Scrubbing back to second 1: 4 s later it plays from there (at most a few seconds on).
        let afterSeek = report["afterSeek"] as? [Any] ?? []
        let position = afterSeek.first as? Double ?? -1
        #expect(position >= 1 && position < 6, "after a seek to 1 s the video is at \(position) s (\(afterSeek))")
        #expect(report["markStatus"] as? Int == 201, "\(report["markBody"] ?? "")")

        // The page's marker reaches the media playlists within a segment or two.
        let markDeadline = Date().addingTimeInterval(8)
        var listed = ""
        while Date() < markDeadline {
            listed = String(decoding: try await http(media).body, as: UTF8.self)
            if listed.contains("X-LABEL=\"\(label)\"") { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(listed.contains("X-LABEL=\"\(label)\""), "\(listed)")

        let clip = try #require(report["clipPath"] as? String, "no clip downloaded: \(report)")
        #expect(clip.hasSuffix(".mp4") && clip.contains("main-360p-"))
        let video = try await FFprobe.packets(clip, stream: "v")
        #expect(video.first?.isKeyframe == true)
        // 2 s to 8 s, both segment boundaries: 6 s at 30 fps.
        #expect(video.count == 180, "\(video.count) video packets")
        #expect(try await FFprobe.decodeErrors(clip) == "")
        #expect(try await server.stop() == 0)
    }
}
