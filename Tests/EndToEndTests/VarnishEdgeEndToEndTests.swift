import Foundation
import HLSPlaylist
import Testing
import TestSupport

/// Config/varnish, as shipped and started by `scripts/edge`, in real varnishd in front of a real
/// Sideline (issue 43): low-latency players through it cost the origin one request per part;
/// players' own query values (CMCD, cache busters) make no object and no origin request of
/// their own, and a crowd waiting on one blocking reload costs the origin one request; the
/// origin counts the player the edge names (`server.trusted_proxies`); with private streams
/// the origin decides every request and viewers share each segment.
@Suite(.serialized) struct VarnishEdgeEndToEndTests {
    static let ladder = """
        video:
          ladder:
            - {name: 180p, width: 320, height: 180, bitrate: 200k, preset: ultrafast, profile: baseline}
        server: {trusted_proxies: [127.0.0.1]}
        """

    /// `scripts/edge` (varnishd in the foreground) in front of `origin`, its files in
    /// `directory`/edge, on a free port: its PID (the caller stops it with `stop`) and the
    /// edge's base URL, once `probe` answers through it. Started from a shell that leaves it
    /// behind: varnishd as a child of the test runner left the runner's later children (curl)
    /// unreaped, and `Process.isRunning` never turned false for them (seen 2026-12-07: each run
    /// hung on its first curl; varnishd changes its user, which nginx in these tests does not).
    static func startEdge(directory: String, origin: Int, privateStreams: Bool = false, probe: String) async throws -> (Int32, String) {
        try await startEdge(directory: directory, arguments: ["--origin", "127.0.0.1:\(origin)"] + (privateStreams ? ["--private"] : []), probe: probe)
    }

    /// `scripts/edge` with `arguments` (where the boxes are), as above.
    static func startEdge(directory: String, arguments: [String], probe: String) async throws -> (Int32, String) {
        _ = try Command.which("varnishd")
        let port = try freePort()
        let arguments = arguments + ["--listen", "127.0.0.1:\(port)", "--workdir", directory + "/edge", "--storage", "64M"]
        let command = "setsid '\(Repository.root.path)/scripts/edge' \(arguments.joined(separator: " ")) >'\(directory)/edge.log' 2>&1 </dev/null & echo $!"
        let started = try await Command.run("/bin/bash", ["-c", command], timeout: 30)
        let pid = try #require(Int32(started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "scripts/edge did not start: \(started.stderr)")
        let base = "http://127.0.0.1:\(port)"
        do {
            _ = try await waitForOK(URL(string: base + probe)!, timeout: 60)
        } catch {
            stop(pid)
            throw error
        }
        return (pid, base)
    }

    /// Stops the edge and waits until it is gone: its whole process group (setsid made one:
    /// varnishd's manager and its child), by SIGKILL, since a process started from the test
    /// runner's threads inherits their blocked signals, SIGTERM among them (Command.run), and
    /// every varnishd of a run stopped by SIGTERM alone was still there afterwards.
    static func stop(_ pid: Int32) {
        kill(-pid, SIGKILL)
        for _ in 0..<100 where kill(pid, 0) == 0 { usleep(50_000) }
    }

    /// Status, headers and body of a GET by curl from `source` (a loopback address: the player).
    static func fetch(_ url: String, headers: [String] = [], from source: String = "127.0.0.1", discardBody: Bool = false) async throws -> (status: Int, headers: [String: String], body: String) {
        try await EdgeCacheEndToEndTests.curl(url, headers: headers, from: source, discardBody: discardBody)
    }

    /// Requests the origin logged for exactly `target` (path and query as it was asked).
    static func originRequests(_ server: SidelineProcess, _ target: String) -> Int {
        server.log.components(separatedBy: "hb.request.path=\(target) ").count - 1
    }

    @Test func lowLatencyPlayersAndACrowdWithTheirOwnQueryValuesCostTheOriginOneRequestPerObject() async throws {
        let directory = try makeTemporaryDirectory("varnish-edge")
        try (Self.ladder + "\nstreams:\n  - {name: main, input: testpattern}\n").write(toFile: directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        let server = try SidelineProcess(arguments: ["--config", directory + "/sideline.yaml", "--data-dir", directory + "/data", "--log-level", "debug",
                                                     "--host", "127.0.0.1", "--port", "0"])
        let origin = try #require(try await server.waitForURL().port)
        let (edgePID, edge) = try await Self.startEdge(directory: directory, origin: origin, probe: "/live/main/180p/index.m3u8")
        defer { Self.stop(edgePID) }
        let media = edge + "/live/main/180p/index.m3u8"

        // Twenty players wait for the same next part at once, each with a CMCD session of its
        // own and the directives in its own order: one request reaches the origin.
        let first = try await Self.fetch(media)
        let again = try await Self.fetch(media)
        #expect(again.headers["x-cache-status"] == "HIT" && again.headers["age"] == nil && first.headers["age"] == nil,
                "a playlist carries no Age (hls.js tunes in by it): \(again.headers)")
        let playlist = first.body
        let hint = try #require(playlist.split(separator: "\n").first { $0.hasPrefix("#EXT-X-PRELOAD-HINT:") }, "\(playlist)")
        let hinted = try #require(hint.split(separator: "\"").dropFirst().first)
        // parts/000012.3.ts: the hinted part's segment and index, which the blocking reload asks for.
        let name = hinted.split(separator: "/").last?.split(separator: ".") ?? []
        let msn = try #require(Int(name.first ?? "")), part = try #require(Int(name.dropFirst().first ?? ""))
        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for player in 0..<20 {
                let cmcd = "CMCD=" + "sid=\"player-\(player)\",bl=\(player * 100)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let query = player.isMultiple(of: 2) ? "?_HLS_msn=\(msn)&_HLS_part=\(part)&_HLS_skip=YES&\(cmcd)" : "?\(cmcd)&_HLS_skip=YES&_HLS_part=\(part)&_HLS_msn=\(msn)&_=\(player)"
                group.addTask { let answer = try await Self.fetch(media + query, from: "127.0.0.\(2 + player % 5)"); return (answer.status, answer.body) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.0 == 200 && $0.1.contains(String(hinted)) }, "every player got the playlist that lists the part: \(answers.map(\.0))")
        let normalised = "/live/main/180p/index.m3u8?_HLS_msn=\(msn)&_HLS_part=\(part)&_HLS_skip=YES"
        #expect(Self.originRequests(server, normalised) == 1, "one blocking reload at the origin for twenty players")
        #expect(!server.log.contains("CMCD"), "no player's query value reaches the origin")
        // Held requests are counted in /metrics (all answered by now).
        let metrics = try await Self.fetch("http://127.0.0.1:\(origin)/metrics").body
        #expect(metrics.contains("sideline_held_requests 0") && metrics.contains("sideline_held_clients 0"), "\(metrics.split(separator: "\n").filter { $0.contains("held") })")
        // The origin counted the player the edge named, not the edge.
        #expect(server.log.contains("client=127.0.0.") && !server.log.contains("client=127.0.0.1 "), "the request log names the players behind the edge")

        // The hinted part, asked by five players with cache busters: one origin request.
        let partPath = "/live/main/180p/" + hinted
        let parts = try await withThrowingTaskGroup(of: Int.self) { group in
            for player in 0..<5 { group.addTask { try await Self.fetch(edge + partPath + "?_=\(player)&CMCD=sid%3D%22p\(player)%22", discardBody: true).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(parts == [200, 200, 200, 200, 200])
        #expect(Self.originRequests(server, partPath) == 1, "one origin request for the part")

        // A part asked for before it is made (404, no-store) leaves nothing behind at the edge:
        // once it is made, five players asking at once cost the origin one more request. (Left
        // to Varnish's own rules, the 404 would have made every request for that URL go to the
        // origin for two minutes.)
        let early = String(format: "/live/main/180p/parts/%06d.0.ts", msn + 2)
        let tooEarly = try await Self.fetch(edge + early, discardBody: true)
        #expect(tooEarly.status == 404, "a part two segments ahead is not made yet: \(tooEarly.status)")
        let earlyName = String(early.dropFirst("/live/main/180p/".count))
        try await eventually("the early part is listed", timeout: 20) { try await Self.fetch(media).body.contains(earlyName) }
        let crowd = try await withThrowingTaskGroup(of: Int.self) { group in
            for player in 0..<5 { group.addTask { try await Self.fetch(edge + early + "?_=\(player)", discardBody: true).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(crowd == [200, 200, 200, 200, 200])
        #expect(Self.originRequests(server, early) == 2, "the 404, then one request for the five players: \(Self.originRequests(server, early))")

        // hls.js in low-latency mode, two players: each plays from parts, and each part reaches
        // the origin once. Counted in the origin's log from their start, from two segments after
        // the first part they asked for: while they join (up to a second apart), one may ask for
        // a part of the segment being made that the other fetched more than its second before
        // (max-age=1), as through the nginx edge (EdgeCacheEndToEndTests).
        let logBefore = server.log.count
        let reports = try await withThrowingTaskGroup(of: CommandResult.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await Command.run("python3", [Repository.root.path + "/Tests/Helpers/hlsjs_play.py", edge + "/live/main/master.m3u8",
                                                      "--hlsjs", Repository.root.path + "/.build-hlsjs/hls.mjs", "--seconds", "12", "--warmup", "5"], timeout: 90)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for run in reports {
            let report = try #require((try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any], "\(run.stdout.suffix(1000)) \(run.stderr.suffix(2000))")
            #expect(report["fatal"] is NSNull && (report["parts"] as? Int ?? 0) >= 10, "hls.js through the Varnish edge: \(report["parts"] ?? "") parts, \(report["errors"] ?? "")")
        }
        let asked = server.log.dropFirst(logBefore).components(separatedBy: "hb.request.path=").dropFirst().compactMap { entry -> Substring? in
            let target = entry.prefix { $0 != " " }
            return target.contains("/parts/") ? target : nil
        }
        func segment(of path: Substring) -> Int { Int(path.split(separator: "/").last?.split(separator: ".").first ?? "") ?? -1 }
        let firstSegment = asked.map(segment).min() ?? 0
        var counts: [Substring: Int] = [:]
        for path in asked where segment(of: path) >= firstSegment + 2 { counts[path, default: 0] += 1 }
        #expect(counts.count >= 10, "the players played from parts: \(counts.count)")
        // A part of the segment being made is kept a second (the origin's max-age=1: a server
        // restarted before the segment is listed makes it again), so a player more than a second
        // behind the other asks the origin again for it once, and never more: seen once in
        // four runs beside other suites (2026-12-07), one part of about 60. Without the waiting
        // list nearly every part would cost two, one per player.
        let twice = counts.filter { $0.value == 2 }, more = counts.filter { $0.value > 2 }
        #expect(more.isEmpty && twice.count * 10 <= counts.count, "one origin request per part: \(counts.filter { $0.value != 1 }.sorted { $0.key < $1.key }) of \(counts.count)")
        try await server.stop()
    }

    @Test func withPrivateStreamsTheOriginDecidesEveryRequestAndViewersShareEachSegment() async throws {
        let directory = try makeTemporaryDirectory("varnish-private")
        try (Self.ladder + "\naccess: {signing_key: edge-signing-key-0123456789}\nstreams:\n  - {name: main, input: testpattern, viewer_token: edge-viewers-0123456789}\n")
            .write(toFile: directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        let server = try SidelineProcess(arguments: ["--config", directory + "/sideline.yaml", "--data-dir", directory + "/data", "--log-level", "debug",
                                                     "--host", "127.0.0.1", "--port", "0"])
        let origin = try #require(try await server.waitForURL().port)
        let (edgePID, edge) = try await Self.startEdge(directory: directory, origin: origin, privateStreams: true, probe: "/healthz")
        defer { Self.stop(edgePID) }
        func sign(_ expires: String) async throws -> String {
            let run = try await Command.run(Repository.sidelineExecutable, ["sign", "main", "--config", directory + "/sideline.yaml", "--base", edge, "--expires", expires])
            return String(String(run.stdout.split(separator: "\n").last ?? "").dropLast("/live/main/master.m3u8".count))
        }
        let viewerA = try await sign("30m"), viewerB = try await sign("20m")
        let media = try await waitForOK(URL(string: viewerA + "/live/main/180p/index.m3u8")!, timeout: 60)
        let first = try #require(try MediaPlaylist.parse(String(decoding: media.body, as: UTF8.self)).segments.first?.uri)
        let segment = "/live/main/180p/" + first

        let none = try await Self.fetch(edge + segment)
        #expect(none.status == 401, "no credential: the origin's 401 \(none.status)")
        let spoofed = try await Self.fetch(edge + segment, headers: ["X-Sideline-Asked: yes", "X-Sideline-Resource: " + segment, "X-Sideline-Target: " + segment])
        #expect(spoofed.status == 401, "a viewer cannot pass itself off as let in: \(spoofed.status)")
        let a = try await Self.fetch(viewerA + segment + "?CMCD=sid%3D%22a%22", discardBody: true)
        let b = try await Self.fetch(viewerB + segment, discardBody: true)
        #expect(a.status == 200 && b.status == 200)
        #expect(b.headers["x-cache-status"] == "HIT", "another viewer's credential, the same stored segment: \(b.headers)")
        #expect(b.headers["cache-control"] == "private, max-age=31536000, immutable" && b.headers["vary"] == "Authorization", "the origin's marking reaches the viewer: \(b.headers)")
        let bearer = try await Self.fetch(edge + segment, headers: ["Authorization: Bearer edge-viewers-0123456789"], discardBody: true)
        #expect(bearer.status == 200 && bearer.headers["x-cache-status"] == "HIT")
        let wrong = try await Self.fetch(edge + segment, headers: ["Authorization: Bearer not-the-token-at-all"])
        #expect(wrong.status == 401)
        let short = try await sign("1s")
        try await Task.sleep(for: .seconds(2))
        let expired = try await Self.fetch(short + segment)
        #expect(expired.status == 403, "expired: the origin's 403 though the edge holds the segment (\(expired.status))")
        #expect(Self.originRequests(server, segment) == 1, "the origin served the segment's bytes once")
        // Playlists go to the origin for every viewer (they can differ by credential).
        let played = try await Command.run("ffmpeg", ["-hide_banner", "-v", "error", "-i", viewerB + "/live/main/master.m3u8", "-t", "6", "-f", "null", "-"], timeout: 60)
        #expect(played.status == 0, "\(played.stderr)")
        try await server.stop()
    }
}
