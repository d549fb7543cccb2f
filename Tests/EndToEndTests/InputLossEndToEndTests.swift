import Foundation
import HLSPlaylist
import Testing
import TestSupport

/// A UDP camera feed (the ffmpeg CLI on loopback) cut for 30 s and restored, with the default
/// `on_input_loss: slate`, through a real `sideline serve`: the playlist keeps advancing
/// during the cut, the span is marked with an EXT-X-DATERANGE of Sideline's class, and the
/// first segment after it carries EXT-X-DISCONTINUITY. With `slate`, the ffmpeg CLI and
/// GStreamer's playbin3 play through the cut.
@Suite struct InputLossEndToEndTests {
    static let cut = 30.0

    static func config(port: Int, policy: String) -> String {
        """
        stream:
          input: udp://127.0.0.1:\(port)
          input_timeout: 8
          loss_timeout: 1
          on_input_loss: \(policy)
        video:
          ladder:
            - {name: 180p, width: 320, height: 180, bitrate: 300k, preset: ultrafast, profile: main}
        """
    }

    /// The sample, looped, sent as MPEG-TS over UDP at real time.
    static func startSender(port: Int) throws -> Process {
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: try Command.which("ffmpeg"))
        sender.arguments = ["-v", "error", "-re", "-stream_loop", "-1", "-i", Repository.sample, "-c", "copy", "-f", "mpegts", "udp://127.0.0.1:\(port)?pkt_size=1316"]
        sender.standardInput = FileHandle.nullDevice
        sender.standardOutput = FileHandle.nullDevice
        sender.standardError = FileHandle.nullDevice
        try sender.run()
        return sender
    }

    /// A player that runs in the background; its output goes to a file read at the end.
    final class Player: @unchecked Sendable {
        let process = Process()
        let logPath: String
        init(_ executable: String, _ arguments: [String]) throws {
            logPath = try makeTemporaryDirectory("player") + "/output.log"
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            process.executableURL = URL(fileURLWithPath: try Command.which(executable))
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            process.standardError = process.standardOutput
            try process.run()
        }
        var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    func playlist(_ url: URL) async throws -> (Int, MediaPlaylist?) {
        let answer = try await http(url)
        return (answer.status, answer.status == 200 ? try MediaPlaylist.parse(String(decoding: answer.body, as: UTF8.self)) : nil)
    }

    // Only `slate` runs here, where real players must play through the cut. What `gap` and
    // `stale` list and answer is decided by pure code and tested in milliseconds:
    // LiveStreamCoreTests (withGapTheSlateIsListedAsGapEntriesWithTheSameDateRanges,
    // withStaleTheSlateIsWithheldAndNoStandInFillsTheCut) and StatusThroughRegistryTests (a
    // variant that stops publishing goes stale, 404). Each took about 45 s here.
    @Test(arguments: ["slate"])
    func aCameraCutForThirtySecondsAndRestored(policy: String) async throws {
        let directory = try makeTemporaryDirectory("loss-\(policy)")
        let port = Int.random(in: 20000...40000)
        let configPath = directory + "/loss.yaml"
        try Self.config(port: port, policy: policy).write(toFile: configPath, atomically: true, encoding: .utf8)
        var sender = try Self.startSender(port: port)
        // SIGKILL: a child started from one of the test runner's threads inherits their
        // blocked signals, SIGTERM and SIGINT among them.
        defer { if sender.isRunning { kill(sender.processIdentifier, SIGKILL) } }
        let server = try SidelineProcess(arguments: ["--config", configPath, "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let master = try await server.waitForURL()
        let media = URL(string: "/live/main/180p/index.m3u8", relativeTo: master)!.absoluteURL
        _ = try await waitForOK(media, timeout: 60)
        let start = Date().addingTimeInterval(30)
        while Date() < start, (try await playlist(media).1?.segments.count ?? 0) < 3 { try await Task.sleep(for: .milliseconds(200)) }

        // Players, with the slate: they must play through the cut.
        var players: [Player] = []
        // ffmpeg starts three segments before the live edge (its default live_start_index).
        var ffmpegStartEntry = 0
        let progressPath = directory + "/ffmpeg-progress.txt"
        if policy == "slate" {
            ffmpegStartEntry = max(0, (try await playlist(media).1?.segments.count ?? 0) - 3)
            players.append(try Player("ffmpeg", ["-hide_banner", "-v", "error", "-progress", progressPath, "-i", master.absoluteString, "-t", "55", "-f", "null", "-"]))
            if (try? Command.which("gst-launch-1.0")) != nil {
                players.append(try Player("gst-launch-1.0", ["-q", "playbin3", "uri=\(master.absoluteString)", "video-sink=fakesink sync=true", "audio-sink=fakesink sync=true"]))
            }
            try await Task.sleep(for: .seconds(3))
        }

        // Cut the camera.
        kill(sender.processIdentifier, SIGKILL)
        sender.waitUntilExit()
        let cutAt = Date()
        var statuses: [Int] = []
        var counts: [Int] = []
        while Date().timeIntervalSince(cutAt) < Self.cut {
            let (status, list) = try await playlist(media)
            statuses.append(status)
            if let list { counts.append(list.segments.count) }
            try await Task.sleep(for: .seconds(1))
        }
        sender = try Self.startSender(port: port)

        // Back: wait for the first segment after the outage.
        var restored: MediaPlaylist?
        let back = Date().addingTimeInterval(40)
        while Date() < back {
            if let list = try await playlist(media).1, list.segments.contains(where: { $0.discontinuity }), list.segments.last?.discontinuity == false {
                restored = list
                break
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        let after = try #require(restored, "no segment after the outage within 40 s of the camera's return: \(server.log)")
        let seam = try #require(after.segments.lastIndex { $0.discontinuity })
        let closing = try #require(after.segments[seam].dateRanges.first, "the first segment after the outage closes the DATERANGE")
        #expect(closing.classLabel == DateRange.inputLostClass && closing.endDate != nil)
        #expect(!after.segments[seam].gap)

        switch policy {
        case "slate":
            #expect(statuses.allSatisfy { $0 == 200 }, "the playlist stays 200 through the cut: \(statuses)")
            #expect((counts.last ?? 0) >= (counts.first ?? 0) + 12, "it keeps advancing, a segment every 2 s: \(counts)")
            let opening = try #require(after.segments.firstIndex { !$0.dateRanges.isEmpty && $0.dateRanges[0].endDate == nil })
            #expect(after.segments[opening].dateRanges[0].id == closing.id && after.segments[opening].dateRanges[0].startDate == closing.startDate)
            for entry in after.segments[opening..<seam] {
                #expect(!entry.gap)
                let segment = try await http(media.deletingLastPathComponent().appendingPathComponent(entry.uri))
                #expect(segment.status == 200, "slate segment \(entry.uri)")
            }
        default:
            Issue.record("\(policy): only slate needs a real server and real players; gap and stale are unit rows")
        }
        if policy == "slate" {
            // The player is at the live edge after the cut: what it has played is within three
            // segments and a second of all the media published since the entry it started from
            // (it reloads the playlist about once a segment and stays a segment or two behind;
            // measured 4.0 s behind 50 s published, printed once by a temporary line in this
            // test: `swift test --filter aCameraCutForThirtySecondsAndRestored`).
            try await Task.sleep(for: .seconds(6))
            let published = try #require(try await playlist(media).1).segments.dropFirst(ffmpegStartEntry).reduce(0) { $0 + $1.duration }
            let progress = (try? String(contentsOfFile: progressPath, encoding: .utf8)) ?? ""
            let playedMicroseconds = progress.split(separator: "\n").last { $0.hasPrefix("out_time_us=") }.flatMap { Double($0.dropFirst("out_time_us=".count)) }
            let played = try #require(playedMicroseconds, "ffmpeg reported its progress: \(progress.suffix(300))") / 1_000_000
            #expect(published - played < 7, "ffmpeg has played \(played) s of the \(published) s published since it joined")
        }
        let durations = after.segments.filter { !$0.gap }.dropLast().map { $0.duration }
        #expect(durations.allSatisfy { abs($0 - 2) < 0.05 }, "\(durations)")

        // The players went on through the cut and reach the live edge after it.
        if policy == "slate" {
            let ffmpegPlayer = players[0]
            let deadline = Date().addingTimeInterval(60)
            while ffmpegPlayer.process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(500)) }
            #expect(!ffmpegPlayer.process.isRunning && ffmpegPlayer.process.terminationStatus == 0, "ffmpeg played 55 s through the cut: \(ffmpegPlayer.log)")
            if players.count > 1 {
                let gst = players[1]
                #expect(gst.process.isRunning, "playbin3 is still playing: \(gst.log)")
                #expect(!gst.log.contains("ERROR"), "\(gst.log)")
                kill(gst.process.processIdentifier, SIGKILL)
            }
        }
        #expect(try await server.stop(signal: SIGINT) == 0, "\(server.log)")
    }

    /// A server restarted while its camera is down serves the recording at once (instead of
    /// exiting because the input cannot be opened), shows the stream as input-lost, retries
    /// with backoff, and continues the recording after a DISCONTINUITY when the camera is back.
    @Test func aRecordedStreamRestartedWithItsCameraDownIsServedAndReconnects() async throws {
        let directory = try makeTemporaryDirectory("camera-down")
        let udpPort = Int.random(in: 20000...40000)
        let configPath = directory + "/down.yaml"
        try Self.config(port: udpPort, policy: "slate").replacingOccurrences(of: "input_timeout: 8", with: "input_timeout: 2")
            .write(toFile: configPath, atomically: true, encoding: .utf8)
        let httpPort = try freePort()
        let arguments = ["--config", configPath, "--host", "127.0.0.1", "--port", String(httpPort), "--data-dir", directory + "/data"]
        let media = URL(string: "http://127.0.0.1:\(httpPort)/live/main/180p/index.m3u8")!
        var sender = try Self.startSender(port: udpPort)
        defer { if sender.isRunning { kill(sender.processIdentifier, SIGKILL) } }

        let first = try SidelineProcess(arguments: arguments)
        defer { if first.process.isRunning { kill(first.process.processIdentifier, SIGKILL) } }
        _ = try await first.waitForURL()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, (try await playlist(media).1?.segments.count ?? 0) < 2 { try await Task.sleep(for: .milliseconds(200)) }
        #expect(try await first.stop(signal: SIGTERM) == 0, "\(first.log)")
        kill(sender.processIdentifier, SIGKILL)
        sender.waitUntilExit()
        let recorded = try MediaPlaylist.parse(try String(contentsOfFile: directory + "/data/main/180p/index.m3u8", encoding: .utf8))
        #expect(recorded.segments.count >= 2)

        // Restart with the camera down: the recording answers within a second of launch.
        let launched = ContinuousClock.now
        let second = try SidelineProcess(arguments: arguments)
        defer { if second.process.isRunning { kill(second.process.processIdentifier, SIGKILL) } }
        var answer: (Int, MediaPlaylist?) = (0, nil)
        while launched.duration(to: .now) < .seconds(10) {
            if let polled = try? await playlist(media), polled.0 == 200 {
                answer = polled
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let answeredAfter = launched.duration(to: .now)
        #expect(answer.0 == 200 && answeredAfter < .seconds(1), "answered after \(answeredAfter): \(second.log)")
        #expect(answer.1?.segments == recorded.segments)
        let stateDeadline = Date().addingTimeInterval(20)
        var state = ""
        while Date() < stateDeadline, state != "input-lost" {
            let listing = try JSONSerialization.jsonObject(with: try await http(URL(string: "http://127.0.0.1:\(httpPort)/api/streams")!).body) as? [String: Any]
            state = ((listing?["streams"] as? [[String: Any]])?.first?["state"] as? String) ?? ""
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(state == "input-lost", "\(second.log)")
        #expect(second.log.contains("cannot start the pipeline"), "\(second.log)")
        #expect(second.process.isRunning, "the server keeps serving while the camera is down")

        // The camera comes back: the retry opens it, and the recording continues.
        sender = try Self.startSender(port: udpPort)
        // Meanwhile stand-ins keep the cadence; the camera's first segment closes their span.
        var continued: MediaPlaylist?
        let back = Date().addingTimeInterval(60)
        while Date() < back {
            if let list = try await playlist(media).1, list.segments.dropFirst(recorded.segments.count).contains(where: { entry in
                entry.dateRanges.contains { $0.classLabel == DateRange.standInClass && $0.endDate != nil }
            }) {
                continued = list
                break
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        let after = try #require(continued, "no camera segment within 60 s of the camera's return: \(second.log)")
        #expect(Array(after.segments.prefix(recorded.segments.count)) == recorded.segments)
        // The stand-ins join untagged (the rung's own format on its slot's timestamps); the
        // camera's first segment after them is tagged.
        let seam = try #require(after.firstEntryPastStandIns(from: recorded.segments.count))
        #expect(after.segments[seam].discontinuity && !after.segments[seam].gap)
        let camera = try #require(after.segments.lastIndex { $0.dateRanges.contains { $0.endDate != nil } })
        #expect(after.segments[camera].discontinuity && !after.segments[camera].gap)
        #expect(try await second.stop(signal: SIGINT) == 0, "\(second.log)")
    }
}
