import Foundation
import Testing
import TestSupport

/// From the server alone, which player struggles, on what, and why: a real player (ffmpeg)
/// sending CMCD headers becomes a session in `/api/sessions` and `/metrics`, its requests'
/// log lines carry their IDs and the headers the config names, and every answer carries an
/// `X-Request-ID`.
@Suite(.serialized) struct PlayerDiagnosticsEndToEndTests {
    static let config = """
    admin: {token: diag-admin-token}
    server: {log_headers: [User-Agent, CMCD-Session]}
    video:
      ladder:
        - {name: 180p, width: 320, height: 180, bitrate: 200k, preset: ultrafast, profile: baseline}
    stream: {name: main, input: testpattern}
    """

    @Test func aStallingPlayerIsSeenFromTheServer() async throws {
        let directory = try makeTemporaryDirectory("diagnostics")
        try Self.config.write(toFile: directory + "/d.yaml", atomically: true, encoding: .utf8)
        let server = try SidelineProcess(arguments: ["--config", directory + "/d.yaml", "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data",
                                                     "--log-level", "debug"])
        defer { _ = Task { try? await server.stop() } }
        let master = try await server.waitForURL()
        _ = try await waitForOK(URL(string: "/live/main/180p/index.m3u8", relativeTo: master)!.absoluteURL, timeout: 60)
        // ffmpeg, as a player whose buffer ran dry: the same CMCD headers on every request.
        let cmcd = "CMCD-Session: sid=\"ffmpeg-1\",st=l\r\nCMCD-Request: bl=0,mtp=350\r\nCMCD-Object: ot=av,br=200\r\nCMCD-Status: bs\r\n"
        let played = try await Command.run("ffmpeg", ["-v", "error", "-headers", cmcd, "-i", master.absoluteString, "-t", "4", "-f", "null", "-"], timeout: 60)
        #expect(played.status == 0, "\(played.stderr)")

        let sessions = try await http(URL(string: "/api/sessions", relativeTo: master)!.absoluteURL, headers: ["Authorization": "Bearer diag-admin-token"])
        #expect(sessions.status == 200)
        let listing = try #require(try JSONSerialization.jsonObject(with: sessions.body) as? [String: Any])
        let session = try #require((listing["sessions"] as? [[String: Any]])?.first, "\(listing)")
        #expect(session["sid"] as? String == "ffmpeg-1" && session["state"] as? String == "stalling" && session["variant"] as? String == "180p", "\(session)")
        #expect(session["measuredThroughputKbps"] as? Int == 350 && (session["userAgent"] as? String)?.hasPrefix("Lavf") == true, "\(session)")
        #expect(try await http(URL(string: "/api/sessions", relativeTo: master)!.absoluteURL).status == 401)

        let metrics = String(decoding: try await http(URL(string: "/metrics", relativeTo: master)!.absoluteURL).body, as: UTF8.self)
        #expect(metrics.contains("sideline_player_sessions{stream=\"main\",state=\"stalling\"} 1") || metrics.contains("sideline_player_sessions{state=\"stalling\",stream=\"main\"} 1"),
                "\(metrics.split(separator: "\n").filter { $0.contains("player") })")
        #expect(metrics.contains("sideline_player_stalls_total"), "one stall began")

        // The request log: each line with its ID and the configured request headers.
        let lines = server.log.split(separator: "\n").filter { $0.contains("hb.request.path=/live/main/180p/") && $0.contains(".ts ") }
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains("request.id=") && $0.contains("request.header.user-agent=Lavf") && $0.contains("request.header.cmcd-session=") },
                "\(lines.prefix(2))")
        let answered = try await http(URL(string: "/live/main/180p/index.m3u8", relativeTo: master)!.absoluteURL, headers: ["X-Request-ID": "trace-me"])
        #expect(answered.headers["x-request-id"] == "trace-me")
        #expect(server.log.contains("request.id=trace-me"))
    }
}
