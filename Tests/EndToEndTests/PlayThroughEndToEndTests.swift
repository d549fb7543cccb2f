import Foundation
import HLSPlaylist
import Testing
import TestSupport

/// With the default policies, real players play through every failure the server survives:
/// a UDP camera cut for 20 s (slate), one variant's encoder failed for 20 s (its slots carry
/// its sibling's segments), the input thread stalled for 12 s (stand-ins while the watchdog
/// restarts the pipeline), and `kill -9` with a restart 1 s later (stand-ins until the new
/// pipeline delivers). They run one after another in one session (35 s apart: the longest
/// drill and 15 s after it), `kill -9` last; the `ffmpeg` CLI and
/// GStreamer's `playbin3` and `playbin` play from before the first drill to well after the
/// last, and:
/// - each plays at least 90% of the wall time from 10 s before each drill to 35 s after its
///   start, and of the whole session from its first frame (a player that stalls or gives up
///   falls below; one that keeps 1x stays at the live edge it joined at);
/// - every segment listed before the drill is still listed, unchanged, and decodes;
/// - the media timestamps of the whole recording never go back (ffprobe, every segment).
@Suite(.serialized) struct PlayThroughEndToEndTests {
    static let token = "play-through-0123456789"
    static let drillAt = 15.0
    /// From one drill's start to the next: the longest drill (20 s) and 15 s to play on after it.
    static let drillEvery = 35.0

    static func config(udpPort: Int) -> String {
        """
        admin:
          token: \(token)
          drills: true
        stream:
          input: udp://127.0.0.1:\(udpPort)
          input_timeout: 8
          loss_timeout: 1
        video:
          ladder:
            - {name: 360p, width: 640, height: 360, bitrate: 600k, preset: ultrafast, profile: main}
            - {name: 180p, width: 320, height: 180, bitrate: 250k, preset: ultrafast, profile: main}
        """
    }

    /// How much a player has played, sampled every half second.
    final class Watch: @unchecked Sendable {
        let name: String
        let player: InputLossEndToEndTests.Player
        let played: () -> Double
        var samples: [(wall: Date, played: Double)] = []

        init(name: String, player: InputLossEndToEndTests.Player, played: @escaping () -> Double) {
            self.name = name
            self.player = player
            self.played = played
        }

        func sample() { samples.append((Date(), played())) }

        /// Played seconds per wall second, from the first sample with a frame to the last.
        var ratio: Double? { ratio(in: samples) }

        /// The same over the samples from `start` for `seconds`.
        func ratio(from start: Date, seconds: Double) -> Double? {
            ratio(in: samples.filter { $0.wall >= start && $0.wall <= start.addingTimeInterval(seconds) })
        }

        private func ratio(in samples: [(wall: Date, played: Double)]) -> Double? {
            guard let first = samples.first(where: { $0.played > 0 }), let last = samples.last, last.wall > first.wall else { return nil }
            return (last.played - first.played) / last.wall.timeIntervalSince(first.wall)
        }
    }

    /// GStreamer: one fakesink message per video frame shown (sync=true: at real time).
    static func gstreamer(_ element: String, master: URL) throws -> Watch {
        let player = try InputLossEndToEndTests.Player("gst-launch-1.0", [
            "-v", element, "uri=\(master.absoluteString)",
            "video-sink=fakesink name=vsink sync=true silent=false", "audio-sink=fakesink sync=true",
        ])
        return Watch(name: element, player: player) {
            Double(player.log.components(separatedBy: "(vsink:sink)").count - 1) / 30
        }
    }

    /// The server's warnings, errors and notices, the last 60: for a failed span, what the box
    /// did around it.
    static func notable(_ log: String) -> String {
        log.split(separator: "\n").filter { $0.contains(" warning ") || $0.contains(" error ") || $0.contains(" notice ") }.suffix(60).joined(separator: "\n")
    }

    /// The ffmpeg CLI, copying what it reads (no decode), reporting how far it got.
    static func ffmpeg(master: URL, directory: String) throws -> Watch {
        let progress = directory + "/ffmpeg-progress.txt"
        let player = try InputLossEndToEndTests.Player("ffmpeg", ["-hide_banner", "-v", "error", "-progress", progress, "-i", master.absoluteString,
                                                                  "-map", "0:v:0", "-map", "0:a:0?", "-c", "copy", "-t", "600", "-f", "null", "-"])
        return Watch(name: "ffmpeg", player: player) {
            let text = (try? String(contentsOfFile: progress, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").last { $0.hasPrefix("out_time_us=") }.flatMap { Double($0.dropFirst("out_time_us=".count)) }.map { $0 / 1e6 } ?? 0
        }
    }

    /// `work` over `items`, at most four at once; the results in the items' order.
    static func fourAtATime<Item: Sendable, Result: Sendable>(_ items: [Item], _ work: @escaping @Sendable (Item) async throws -> Result) async throws -> [Result] {
        try await withThrowingTaskGroup(of: (Int, Result).self) { group in
            var results = [Result?](repeating: nil, count: items.count)
            for (index, item) in items.enumerated() {
                if index >= 4, let (done, result) = try await group.next() { results[done] = result }
                group.addTask { (index, try await work(item)) }
            }
            for try await (done, result) in group { results[done] = result }
            return results.compactMap { $0 }
        }
    }

    func playlist(_ url: URL) async throws -> MediaPlaylist? {
        let answer = try await http(url)
        return answer.status == 200 ? try MediaPlaylist.parse(String(decoding: answer.body, as: UTF8.self)) : nil
    }

    // Four drills in one session, not four sessions: the same checks in 165 s of playing
    // instead of 240, and three start-ups fewer (the phase's budget, issue 27). `kill -9` last:
    // the ffmpeg CLI may end there (below).
    @Test(arguments: [["cut", "fail", "stall", "restart"]])
    func playersPlayThrough(drills: [String]) async throws {
        let session = drills.joined(separator: "+")
        let directory = try makeTemporaryDirectory("play-\(session)")
        let udpPort = Int.random(in: 20000...40000)
        let httpPort = try freePort()
        let configPath = directory + "/play.yaml"
        try Self.config(udpPort: udpPort).write(toFile: configPath, atomically: true, encoding: .utf8)
        let sender = try InputLossEndToEndTests.startSender(port: udpPort)
        defer { if sender.isRunning { kill(sender.processIdentifier, SIGKILL) } }
        let arguments = ["--config", configPath, "--host", "127.0.0.1", "--port", String(httpPort), "--data-dir", directory + "/data"]
        var server = try SidelineProcess(arguments: arguments)
        let firstLogPath = server.logPath  // the process the drills before the restart ran on
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let master = try await server.waitForURL()
        let base = master.deletingLastPathComponent()
        _ = try await waitForOK(master, timeout: 60)
        // Players join a stream with some history, as analysts do: playbin3 from gst-launch
        // waits for its buffer to fill before it plays, which at the live edge of a stream one
        // segment old takes it over 15 s.
        let joinBy = Date().addingTimeInterval(30)
        while Date() < joinBy, (try await playlist(base.appendingPathComponent("360p/index.m3u8"))?.segments.count ?? 0) < 4 {
            try await Task.sleep(for: .milliseconds(200))
        }

        var watches = [try Self.ffmpeg(master: master, directory: directory)]
        if (try? Command.which("gst-launch-1.0")) != nil {
            watches.append(try Self.gstreamer("playbin3", master: master))
            watches.append(try Self.gstreamer("playbin", master: master))
        }
        defer { for watch in watches where watch.player.process.isRunning { kill(watch.player.process.processIdentifier, SIGKILL) } }

        let started = Date()
        var before: [String: MediaPlaylist] = [:]
        var drilledAt: [Date] = []
        var restart: RestartProbe?
        // Until the last drill's span (35 s from its start) is over, and a second more.
        let playFor = Self.drillAt + Double(drills.count) * Self.drillEvery + 1
        while Date().timeIntervalSince(started) < playFor {
            for watch in watches { watch.sample() }
            if drilledAt.count < drills.count && Date().timeIntervalSince(started) >= Self.drillAt + Double(drilledAt.count) * Self.drillEvery {
                let drill = drills[drilledAt.count]
                drilledAt.append(Date())
                if before.isEmpty {
                    for variant in ["360p", "180p"] { before[variant] = try await playlist(base.appendingPathComponent("\(variant)/index.m3u8")) }
                }
                switch drill {
                case "cut", "stall", "fail":
                    let path = drill == "fail" ? "/admin/streams/main/variants/360p/fail?seconds=20"
                        : drill == "cut" ? "/admin/streams/main/cut?seconds=20" : "/admin/streams/main/stall?seconds=12"
                    let answer = try await http(URL(string: path, relativeTo: master)!.absoluteURL, method: "POST", headers: ["Authorization": "Bearer \(Self.token)"])
                    #expect(answer.status == 202, "\(drill): \(String(decoding: answer.body, as: UTF8.self))")
                default:
                    let killedAt = Date()
                    kill(server.process.processIdentifier, SIGKILL)
                    server.process.waitUntilExit()
                    try await Task.sleep(for: .seconds(1))
                    server = try SidelineProcess(arguments: arguments)
                    restart = RestartProbe(killedAt: killedAt, playlist: base.appendingPathComponent("360p/index.m3u8"))
                }
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        for watch in watches { watch.sample() }
        let restartSeen = await restart?.finish() ?? "no restart"
        print("play-through \(session) restart: \(restartSeen)")

        // Every player is still playing, and played at least 90% of the time around each drill
        // and over the whole session.
        for watch in watches {
            let ratio = try #require(watch.ratio, "\(session): \(watch.name) never played: \(watch.player.log.suffix(1500))")
            let spans = zip(drills, drilledAt).map { drill, at in (drill, watch.ratio(from: at.addingTimeInterval(-10), seconds: Self.drillEvery + 10) ?? 0) }
            print("play-through \(session) \(watch.name): \(String(format: "%.2f", ratio)) played s per wall s (\(spans.map { "\($0.0) \(String(format: "%.2f", $0.1))" }.joined(separator: ", "))), running: \(watch.player.process.isRunning)")
            // A killed process refuses connections until its replacement listens, and the ffmpeg
            // CLI's HLS demuxer (5.1) ends at the first playlist reload that fails. Only a
            // listening socket held across the restart (systemd socket activation) would keep
            // it; Hummingbird 2.28 cannot serve on an inherited socket. It survives when no
            // reload falls in the second or two of downtime. The restart comes last, so the
            // drills before it are held to the full rule for ffmpeg too.
            let mayEndAtRestart = watch.name == "ffmpeg" && drills.last == "restart"
            for (drill, spanRatio) in spans where !(mayEndAtRestart && drill == "restart") {
                // ffmpeg stalled in the stall drill in 3 of 8 full runs on 2026-12-07: the first
                // stand-in came as the playlists turned stale (404), which ends ffmpeg's playback.
                // The stale rule now counts the late grace (StatusPolicyTests).
                #expect(spanRatio >= 0.9, "\(drill): \(watch.name) played \(spanRatio) s per wall second from 10 s before the drill to 35 s after its start: \(watch.samples.map { Int($0.played) }); the restart: \(restartSeen); what the server said: \(Self.notable((try? String(contentsOfFile: firstLogPath, encoding: .utf8)) ?? ""))\(drill == "restart" ? "; after the restart: " + Self.notable((try? String(contentsOfFile: server.logPath, encoding: .utf8)) ?? "") : "")")
            }
            let check = {
                #expect(watch.player.process.isRunning, "\(session): \(watch.name) stopped: \(watch.player.log.suffix(1500))")
                #expect(ratio >= 0.9, "\(session): \(watch.name) played \(ratio) s per wall second: \(watch.samples.map { Int($0.played) })")
                if mayEndAtRestart, let restart = spans.last?.1 {
                    #expect(restart >= 0.9, "restart: ffmpeg played \(restart) s per wall second around it")
                }
            }
            if mayEndAtRestart {
                withKnownIssue("ffmpeg 5.1 ends on a refused playlist reload", isIntermittent: true) { check() }
            } else {
                check()
            }
        }

        // What was listed before is still listed and decodes; timestamps never go back.
        for variant in ["360p", "180p"] {
            let earlier = try #require(before[variant])
            let now = try #require(try await playlist(base.appendingPathComponent("\(variant)/index.m3u8")))
            #expect(Array(now.segments.prefix(earlier.segments.count)) == earlier.segments, "\(session): \(variant) kept its entries")
            // Probed four at a time: some 80 ffprobe runs per variant, one after another, took
            // about 10 s of the phase's budget.
            let listed = now.segments.enumerated().filter { !$0.element.gap }.map { (index: $0.offset, entry: $0.element, file: directory + "/data/main/\(variant)/\($0.element.uri)") }
            let probed = try await Self.fourAtATime(listed) { item in
                (first: try await FFprobe.packets(item.file, stream: "v").first?.pts,
                 decodes: item.index < earlier.segments.count ? try await Command.run("ffmpeg", ["-v", "error", "-i", item.file, "-f", "null", "-"]).status == 0 : true)
            }
            var previousEnd = -Double.infinity
            for (item, result) in zip(listed, probed) {
                let first = try #require(result.first, "\(item.file) has video")
                #expect(first >= previousEnd - 0.001, "\(session): \(variant) entry \(item.index) starts at \(first), before the previous one ended (\(previousEnd))")
                previousEnd = first + item.entry.duration
                #expect(result.decodes, "\(item.file) decodes")
            }
        }
        #expect(try await server.stop(signal: SIGINT) == 0, "\(server.log)")
    }

    /// The master answers 200 only once every media playlist it lists does.
    @Test func everyPlaylistTheFirstMasterListsAnswers() async throws {
        let directory = try makeTemporaryDirectory("master-race")
        let configPath = directory + "/race.yaml"
        try """
        stream:
          input: testpattern
        video:
          ladder:
            - {name: 360p, width: 640, height: 360, bitrate: 600k, preset: veryfast, profile: main}
            - {name: 180p, width: 320, height: 180, bitrate: 250k, preset: ultrafast, profile: main}
        """.write(toFile: configPath, atomically: true, encoding: .utf8)
        let server = try SidelineProcess(arguments: ["--config", configPath, "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let master = try await server.waitForURL()
        var text: String?
        let deadline = Date().addingTimeInterval(60)
        while text == nil && Date() < deadline {
            let answer = try await http(master)
            if answer.status == 200 { text = String(decoding: answer.body, as: UTF8.self) } else { try await Task.sleep(for: .milliseconds(20)) }
        }
        let listing = try MultivariantPlaylist.parseVariantURIs(try #require(text, "the master never answered 200"))
        #expect(listing.count == 2)
        for uri in listing {
            let status = try await http(URL(string: uri, relativeTo: master)!.absoluteURL).status
            #expect(status == 200, "\(uri) answers \(status) right after the first 200 of the master")
        }
        #expect(try await server.stop(signal: SIGINT) == 0, "\(server.log)")
    }
}

extension MultivariantPlaylist {
    /// The URI line after each EXT-X-STREAM-INF.
    static func parseVariantURIs(_ text: String) throws -> [String] {
        let lines = text.split(separator: "\n").map(String.init)
        return lines.indices.dropLast().filter { lines[$0].hasPrefix("#EXT-X-STREAM-INF") }.map { lines[$0 + 1] }
    }
}
