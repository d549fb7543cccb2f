import Foundation
import Testing
import TestSupport

/// A private stream on a real server: nothing without credentials (401 on master, media
/// playlist, segment, VOD and clip), and the URL `sideline sign` prints played by every real
/// player we run with nothing else configured. The server's own request log (debug) is the
/// witness that each player's every playlist and segment request carried the credential.
@Suite(.serialized) struct ViewerAccessEndToEndTests {
    static let config = """
    server: {log_headers: [User-Agent]}
    access: {signing_key: venue-signing-key-0123456789}
    video:
      ladder:
        - {name: 360p, width: 640, height: 360, bitrate: 600k, preset: ultrafast, profile: main}
        - {name: 180p, width: 320, height: 180, bitrate: 200k, preset: ultrafast, profile: baseline}
    streams:
      - {name: home, input: \(Repository.sample), loop: true, viewer_token: home-viewers-0123456789}
    """

    /// One request line of the server's debug log: path (credential taken off), status, and
    /// how the gate let it in (`url`: a credential in its path).
    struct Logged: Equatable {
        let path: String
        let status: Int
        let access: String?
    }

    static func requests(in log: Substring) -> [Logged] {
        log.split(separator: "\n").compactMap { line in
            guard let path = line.firstMatch(of: /hb\.request\.path=(\S+)/)?.1, let status = line.firstMatch(of: /http\.status=(\d+)/)?.1 else { return nil }
            return Logged(path: String(path), status: Int(status) ?? 0, access: line.firstMatch(of: /access=(\S+)/).map { String($0.1) })
        }
    }

    /// Which player a request came from, by the User-Agent its log line carries
    /// (`server.log_headers`): ffmpeg's Lavf, GStreamer's souphttpsrc, Chromium, VLC, and
    /// streamlink (which sends a Firefox one).
    static func userAgent(of line: Substring) -> String? {
        guard let range = line.range(of: "request.header.user-agent=", options: .caseInsensitive) else { return nil }
        let agent = line[range.upperBound...]
        for (marker, player) in [("Lavf", "ffmpeg"), ("GStreamer", "gstreamer"), ("Chrome", "chromium"), ("VLC", "vlc"), ("Firefox", "streamlink")]
        where agent.contains(marker) {
            return player
        }
        return "other"
    }

    static func agent(of player: String) -> String { player.hasPrefix("playbin") ? "gstreamer" : player == "hlsjs" ? "chromium" : player }

    @Test func nothingWithoutCredentialsAndEveryPlayerFollowsTheSignedURL() async throws {
        let directory = try makeTemporaryDirectory("access")
        let configPath = directory + "/access.yaml"
        try Self.config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let server = try SidelineProcess(arguments: ["--config", configPath, "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data", "--log-level", "debug"])
        defer { _ = Task { try? await server.stop() } }
        let plain = try await server.waitForURL()
        #expect(server.log.contains("private: that URL answers 401"))
        let base = "http://127.0.0.1:\(plain.port!)"

        // Nothing without credentials, on every kind of resource; the page's listing names the
        // stream as locked and gives none of its URLs.
        // Once the second segment is on disk, so a 401 on a segment path is on one that exists.
        let second = directory + "/data/home/360p/000001.ts"
        for _ in 0..<150 where !FileManager.default.fileExists(atPath: second) { try await Task.sleep(for: .milliseconds(200)) }
        for path in ["/live/home/master.m3u8", "/live/home/360p/index.m3u8", "/live/home/360p/000001.ts", "/vod/home/master.m3u8",
                     "/api/streams/home/clip.mp4?start=0&end=2", "/api/streams/home/markers"] {
            let response = try await http(URL(string: base + path)!)
            #expect(response.status == 401, "\(path)")
            #expect(response.headers["www-authenticate"] == "Bearer realm=\"sideline-viewer\"", "\(path)")
        }
        let listing = String(decoding: try await http(URL(string: base + "/api/streams")!).body, as: UTF8.self)
        #expect(listing.contains("\"locked\"") && !listing.contains("master.m3u8"), "\(listing)")
        let unlocked = String(decoding: try await http(URL(string: base + "/api/streams")!, headers: ["Authorization": "Bearer home-viewers-0123456789"]).body, as: UTF8.self)
        #expect(unlocked.contains("/access/s1~home~"), "the page's URLs carry a signed credential: \(unlocked)")

        // An expired URL: 403 that says so.
        let short = try await Command.run(Repository.sidelineExecutable, ["sign", "home", "--config", configPath, "--base", base, "--expires", "1s"])
        try await Task.sleep(for: .seconds(2))
        let expired = try await http(URL(string: String(short.stdout.split(separator: "\n").last ?? ""))!)
        #expect(expired.status == 403 && String(decoding: expired.body, as: UTF8.self).contains("expired"))

        let signed = try await Command.run(Repository.sidelineExecutable, ["sign", "home", "--config", configPath, "--base", base, "--expires", "30m"])
        #expect(signed.status == 0, "\(signed.stderr)")
        let url = String(signed.stdout.split(separator: "\n").last ?? "")
        #expect(url.hasPrefix(base + "/access/s1~home~") && url.hasSuffix("/live/home/master.m3u8"), "\(signed.stdout)")

        var players: [(String, [String])] = [
            ("ffmpeg", ["ffmpeg", "-v", "error", "-i", url, "-t", "4", "-f", "null", "-"]),
            ("playbin", ["gst-launch-1.0", "-q", "playbin", "uri=\(url)", "video-sink=fakesink", "audio-sink=fakesink"]),
            ("playbin3", ["gst-launch-1.0", "-q", "playbin3", "uri=\(url)", "video-sink=fakesink", "audio-sink=fakesink"]),
            ("chromium", ["python3", Repository.root.appendingPathComponent("Tests/Helpers/chromium_play.py").path, url]),
        ]
        // VLC refuses to run as root.
        if (try? Command.which("cvlc")) != nil {
            players.append(("vlc", (getuid() == 0 ? ["runuser", "-u", "nobody", "--", "env", "HOME=/tmp"] : [])
                + ["cvlc", "--intf", "dummy", "--vout", "dummy", "--aout", "dummy", "--play-and-exit", "--run-time", "6", url]))
        }
        if (try? Command.which("streamlink")) != nil {
            players.append(("streamlink", ["streamlink", "--hls-duration", "6", "-f", "-o", "/dev/null", "hls://" + url, "best"]))
        }
        #expect(players.count == 6, "every player the brief names is installed (scripts/ensure-deps.sh --test)")
        // hls.js in low-latency mode asks for parts, the preload hint and blocking reloads:
        // each through the credential in the path (issue 34).
        players.append(("hlsjs", ["python3", Repository.root.appendingPathComponent("Tests/Helpers/hlsjs_play.py").path, url,
                                  "--hlsjs", Repository.root.appendingPathComponent(".build-hlsjs/hls.mjs").path, "--seconds", "8", "--warmup", "3"]))
        func check(_ name: String, _ result: CommandResult, _ seen: [Logged]) throws {
            let segments = seen.filter { $0.path.hasSuffix(".ts") }
            #expect(segments.count >= 2 && segments.allSatisfy { $0.access == "url" && [200, 206].contains($0.status) }, "\(name): \(seen) \(result.stderr)")
            #expect(!server.log.contains("~home~"), "the log never shows a credential")
            #expect(seen.contains { $0.path.hasSuffix("/360p/index.m3u8") || $0.path.hasSuffix("/180p/index.m3u8") }, "\(name) fetched a media playlist")
            #expect(!seen.contains { $0.status == 401 || $0.status == 403 }, "\(name): \(seen.filter { $0.status >= 400 })")
            if name == "chromium" { #expect(result.stdout.contains("\"error\": null"), "\(result.stdout)") }
            if name == "hlsjs" {
                let parts = seen.filter { $0.path.contains("/parts/") }
                #expect(!parts.isEmpty && parts.allSatisfy { $0.access == "url" && $0.status == 200 }, "hls.js asked for parts through the credential: \(parts) \(result.stdout.prefix(2000))")
                #expect(result.stdout.contains("\"fatal\": null"), "\(result.stdout.prefix(2000))")
            }
        }
        // Two waves of players at once (the phase's budget, issue 27): each request's log line
        // carries its User-Agent, which tells the players apart, except playbin from playbin3.
        for wave in [players.filter { $0.0 != "playbin3" && $0.0 != "hlsjs" }, players.filter { $0.0 == "playbin3" || $0.0 == "hlsjs" }] {
            let before = server.log.count
            let results = try await withThrowingTaskGroup(of: (String, CommandResult).self) { group in
                for (name, command) in wave {
                    group.addTask { (name, try await Command.run(command[0], Array(command.dropFirst()), timeout: 12)) }
                }
                var results: [String: CommandResult] = [:]
                for try await (name, result) in group { results[name] = result }
                return results
            }
            let lines = server.log.dropFirst(before).split(separator: "\n")
            for (name, _) in wave {
                guard let result = results[name] else { continue }
                try check(name, result, Self.requests(in: lines.filter { Self.userAgent(of: $0) == Self.agent(of: name) }.joined(separator: "\n")[...]))
            }
        }
        // The page: the stream shows locked, the viewer types the token once, and it plays, its
        // markers list and its clip downloads through URLs that carry the credential.
        let downloads = try makeTemporaryDirectory("access-page")
        let page = try await Command.run("python3", [Repository.root.path + "/Tests/Helpers/page_check.py", base + "/?stream=home", "--token", "none",
                                                     "--label", "x", "--downloads", downloads, "--viewer-token", "home-viewers-0123456789"], timeout: 120)
        // `try?`: a page check that ended without its report says why (its stderr) instead of
        // "not in the correct format".
        let report = try #require((try? JSONSerialization.jsonObject(with: Data(page.stdout.utf8))) as? [String: Any],
                                  "page_check.py exited \(page.status): \(page.stdout.suffix(2000)) \(page.stderr.suffix(3000))")
        #expect(report["lockedBefore"] as? [String] == ["home"] && report["unlocked"] as? [String] == ["home"], "\(report)")
        #expect((report["played"] as? Double ?? 0) >= 3, "\(report)")
        #expect((report["clipPath"] as? String).map { FileManager.default.fileExists(atPath: $0) } == true, "\(report)")
        let metrics = String(decoding: try await http(URL(string: base + "/metrics")!).body, as: UTF8.self)
        #expect(metrics.contains("sideline_access_refused_total{status=\"401\"} 6"), "the six refusals above, counted")
        #expect(metrics.contains("sideline_access_refused_total{status=\"403\"} 1"))
    }
}
