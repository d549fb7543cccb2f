import Foundation
import HLSPlaylist
import PipelineCore
import Testing
import TestSupport

/// Two `sideline serve` boxes with `redundancy`, each running the test pattern on its own, with
/// nothing shared but their configs and this machine's clock (issue 35, item 1): every slot
/// both list has the same media sequence number, the same EXT-X-PROGRAM-DATE-TIME and the same
/// first presentation timestamp, and the frames at that timestamp were captured within a frame
/// of each other; the same after one box restarts, its missed slots GAP entries under their
/// own numbers.
@Suite(.serialized) struct RedundancyEndToEndTests {
    struct Box {
        let port: Int
        let directory: String
        var base: String { "http://127.0.0.1:\(port)" }

        /// `partDuration` 0: whole segments only (what ffmpeg and the timeline checks need).
        func config(peer: Int, role: String, partDuration: Double = 0) -> String {
            """
            server: {host: 127.0.0.1, port: \(port)}
            redundancy: {peer: 'http://127.0.0.1:\(peer)', role: \(role)}
            admin: {token: \(RedundancyEndToEndTests.adminToken), drills: true}
            part_duration: \(partDuration)
            video:
              frame_rate: 30
              ladder:
                - {name: 180p, width: 320, height: 180, bitrate: 200k, preset: ultrafast, profile: baseline}
            stream: {name: main, input: testpattern}
            angle_sets:
              - {name: match, streams: [main]}
            """
        }

        func start() throws -> SidelineProcess {
            try SidelineProcess(arguments: ["--config", directory + "/sideline.yaml", "--data-dir", directory + "/data"])
        }

        func playlist() async throws -> MediaPlaylist {
            try MediaPlaylist.parse(String(decoding: try await http(URL(string: base + "/live/main/180p/index.m3u8")!).body, as: UTF8.self))
        }
    }

    static let adminToken = "pair-admin-0123456789"

    /// Media sequence number -> entry, for every entry of `playlist`.
    static func bySequence(_ playlist: MediaPlaylist) -> [Int: MediaSegment] {
        Dictionary(uniqueKeysWithValues: playlist.segments.enumerated().map { (playlist.mediaSequence + $0.offset, $0.element) })
    }

    /// The first video PTS (seconds) of a segment and the capture time (Unix ms) painted into
    /// its first frame.
    static func firstFrame(_ url: String, in directory: String, name: String) async throws -> (pts: Double, captured: Int64?) {
        let file = "\(directory)/\(name).ts"
        try await http(URL(string: url)!).body.write(to: URL(fileURLWithPath: file))
        let pts = try #require(try await FFprobe.packets(file, stream: "v").first?.pts)
        let raw = "\(directory)/\(name).gray"
        _ = try await Command.run("ffmpeg", ["-v", "error", "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-y", raw])
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: raw)))
        return (pts, bytes.count >= 320 * 180 ? PatternClock.read(luma: bytes[0..<(320 * 180)], width: 320, height: 180, stride: 320) : nil)
    }

    /// Every entry of both boxes is slot n under number n, and the slots both list as segments
    /// agree in date, timestamp and moment.
    static func expectOneTimeline(_ a: Box, _ b: Box, label: String) async throws {
        let (pa, pb) = (try await a.playlist(), try await b.playlist())
        for (box, playlist) in [("A", pa), ("B", pb)] {
            for (sequence, entry) in bySequence(playlist) {
                let date = try #require(entry.programDateTime, "\(label): box \(box) entry \(sequence) has a date")
                #expect(abs(date.timeIntervalSince1970 / 2 - Double(sequence)) < 1e-6, "\(label): box \(box) lists slot \(date.timeIntervalSince1970 / 2) as \(sequence)")
            }
        }
        let (ea, eb) = (bySequence(pa), bySequence(pb))
        let shared = Set(ea.keys).intersection(eb.keys).filter { ea[$0]?.gap == false && eb[$0]?.gap == false }.sorted()
        #expect(shared.count >= 2, "\(label): both boxes list segments for the same slots: \(ea.keys.sorted()) \(eb.keys.sorted())")
        // The newest shared segment but one (the newest may have a stand-in on one side).
        guard let sequence = shared.dropLast().last ?? shared.last, let uriA = ea[sequence]?.uri, let uriB = eb[sequence]?.uri else { return }
        #expect(ea[sequence]?.programDateTime == eb[sequence]?.programDateTime)
        let directory = try makeTemporaryDirectory("redundancy-frames")
        let fa = try await firstFrame(a.base + "/live/main/180p/" + uriA, in: directory, name: "a")
        let fb = try await firstFrame(b.base + "/live/main/180p/" + uriB, in: directory, name: "b")
        // Wrapped at 2^33 ticks of 90 kHz in MPEG-TS, on both boxes alike.
        #expect(abs(fa.pts - fb.pts) < 1.0 / 30, "\(label): slot \(sequence) starts at PTS \(fa.pts) on A, \(fb.pts) on B")
        let (ca, cb) = (try #require(fa.captured, "\(label): A's frame reads"), try #require(fb.captured, "\(label): B's frame reads"))
        print("redundancy: \(label): slot \(sequence), PTS \(fa.pts) / \(fb.pts), captured \(ca) / \(cb) (\(ca - cb) ms apart)")
        #expect(abs(ca - cb) <= 67, "\(label): the frames at slot \(sequence)'s first PTS were captured \(ca - cb) ms apart")
    }

    @Test func twoBoxesListTheSameSlotUnderTheSameNumberAcrossARestart() async throws {
        let a = Box(port: try freePort(), directory: try makeTemporaryDirectory("redundancy-a"))
        let b = Box(port: try freePort(), directory: try makeTemporaryDirectory("redundancy-b"))
        try a.config(peer: b.port, role: "primary").write(toFile: a.directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        try b.config(peer: a.port, role: "standby").write(toFile: b.directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        let boxA = try a.start()
        defer { _ = Task { try? await boxA.stop() } }
        _ = try await boxA.waitForURL()
        // B starts 3.3 s later: another first slot, the same numbers.
        try await Task.sleep(for: .milliseconds(3300))
        var boxB = try b.start()
        _ = try await boxB.waitForURL()
        try await eventually("both boxes list three segments", timeout: 40) {
            guard let pa = try? await a.playlist(), let pb = try? await b.playlist() else { return false }
            return pa.segments.filter { !$0.gap }.count >= 3 && pb.segments.filter { !$0.gap }.count >= 4
        }
        try await Self.expectOneTimeline(a, b, label: "started apart")

        // B down for 7 s and back: the slots it missed are GAP entries under their own numbers.
        _ = try await boxB.stop()
        let before = try MediaPlaylist.parse(try String(contentsOfFile: b.directory + "/data/main/180p/index.m3u8", encoding: .utf8))
        try await Task.sleep(for: .seconds(7))
        boxB = try b.start()
        defer { _ = Task { [boxB] in try? await boxB.stop() } }
        _ = try await boxB.waitForURL()
        try await eventually("B lists two segments after its restart", timeout: 40) {
            ((try? await b.playlist())?.segments.count ?? 0) >= before.segments.count + 6
        }
        let after = try await b.playlist()
        #expect(after.mediaSequence == before.mediaSequence, "the recording keeps its numbers")
        #expect(after.segments[before.segments.count...].prefix(3).allSatisfy { $0.gap }, "the slots B missed are GAP entries")
        try await Self.expectOneTimeline(a, b, label: "after B's restart")
        // A's input stalls for 6 s (the admin drill): A fills the slots with stand-ins, its
        // watchdog restarts the pipeline, and B lists its own pictures meanwhile.
        let stalled = try await http(URL(string: a.base + "/admin/streams/main/stall?seconds=6")!, method: "POST", headers: ["Authorization": "Bearer \(Self.adminToken)"])
        #expect(stalled.status == 202, "\(String(decoding: stalled.body, as: UTF8.self))")
        try await eventually("A lists stand-ins, then three segments of its own", timeout: 40) {
            let listed = try await a.playlist().segments
            guard let closed = listed.lastIndex(where: { $0.dateRanges.contains { $0.classLabel == DateRange.standInClass && $0.endDate != nil } }) else { return false }
            return listed[closed...].filter { !$0.gap }.count >= 3
        }
        // Every slot both list has the same Discontinuity Sequence Number on both (RFC 8216
        // §6.2.4): B's restart added no EXT-X-DISCONTINUITY of its own, and A's stand-ins (the
        // rung's own format on their slots' timestamps) none either.
        let (pa, pb) = (try await a.playlist(), try await b.playlist())
        #expect(!pa.segments.contains { $0.discontinuity } && !pb.segments.contains { $0.discontinuity }, "no EXT-X-DISCONTINUITY on either box")
        func discontinuitySequence(_ playlist: MediaPlaylist) -> [Int: Int] {
            var count = 0
            return Dictionary(uniqueKeysWithValues: playlist.segments.enumerated().map { index, entry in
                if entry.discontinuity { count += 1 }
                return (playlist.mediaSequence + index, count)
            })
        }
        let (da, db) = (discontinuitySequence(pa), discontinuitySequence(pb))
        let differing = Set(da.keys).intersection(db.keys).filter { da[$0] != db[$0] }.sorted()
        #expect(differing.isEmpty, "slots with another Discontinuity Sequence Number on each box: \(differing.prefix(5)) (A \(differing.first.flatMap { da[$0] } ?? -1), B \(differing.first.flatMap { db[$0] } ?? -1))")

        // Pathways and steering (issue 35, item 3): each master lists its own rungs on its
        // pathway and the other box's after them on the other's; the standby steers players
        // to the primary while it answers (PeerWatchService probing it), to itself once the
        // primary is gone.
        let masterB = try MultivariantPlaylist.parse(String(decoding: try await http(URL(string: b.base + "/live/main/master.m3u8")!).body, as: UTF8.self))
        #expect(masterB.contentSteering == ContentSteering(serverURI: "steering.json", pathwayID: "standby"))
        #expect(masterB.variants.map(\.pathwayID) == ["standby", "primary"])
        #expect(masterB.variants.last?.uri == a.base + "/live/main/180p/index.m3u8")
        let masterA = try MultivariantPlaylist.parse(String(decoding: try await http(URL(string: a.base + "/live/main/master.m3u8")!).body, as: UTF8.self))
        #expect(masterA.variants.map(\.pathwayID) == ["primary", "standby"] && masterA.variants.last?.uri == b.base + "/live/main/180p/index.m3u8")
        func steering(_ box: Box) async throws -> [String] {
            let answer = try await http(URL(string: box.base + "/live/main/steering.json")!)
            let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            #expect(answer.headers["content-type"] == "application/json" && object?["VERSION"] as? Int == 1 && object?["TTL"] as? Int == 4)
            return object?["PATHWAY-PRIORITY"] as? [String] ?? []
        }
        #expect(try await steering(a) == ["primary", "standby"])
        // A set's master carries the pathways too, and its steering manifest is the box's.
        let setB = try MultivariantPlaylist.parse(String(decoding: try await http(URL(string: b.base + "/live/match/master.m3u8")!).body, as: UTF8.self))
        #expect(setB.contentSteering == ContentSteering(serverURI: "steering.json", pathwayID: "standby"))
        #expect(setB.variants.map(\.pathwayID) == ["standby", "primary"] && setB.variants.last?.uri == a.base + "/live/main/180p/index.m3u8")
        let setSteering = try await http(URL(string: a.base + "/live/match/steering.json")!)
        #expect(setSteering.status == 200 && String(decoding: setSteering.body, as: UTF8.self).contains(#""PATHWAY-PRIORITY":["primary","standby"]"#),
                "\(String(decoding: setSteering.body, as: UTF8.self))")
        try await eventually("the standby steers to the primary once it has answered 6 s", timeout: 15) { try await steering(b) == ["primary", "standby"] }
        _ = try await boxA.stop(signal: SIGKILL)
        let killed = Date()
        try await eventually("the standby steers to itself when the primary is gone", timeout: 10) { try await steering(b) == ["standby", "primary"] }
        print("redundancy: the standby steered to itself \(String(format: "%.2f", Date().timeIntervalSince(killed))) s after the primary was killed")
        #expect(Date().timeIntervalSince(killed) < 3, "two failed probes half a second apart")
        _ = try await boxB.stop()
    }

    /// A redundant pair (A primary, B standby) running, with `partDuration`, behind the shipped
    /// edge (B as `backup`), once both list three segments. The caller stops the boxes and nginx.
    static func pairBehindTheEdge(_ name: String, partDuration: Double) async throws
        -> (a: Box, b: Box, boxA: SidelineProcess, boxB: SidelineProcess, nginx: Process, edgePort: Int) {
        _ = try Command.which("nginx")
        let a = Box(port: try freePort(), directory: try makeTemporaryDirectory(name + "-a"))
        let b = Box(port: try freePort(), directory: try makeTemporaryDirectory(name + "-b"))
        try a.config(peer: b.port, role: "primary", partDuration: partDuration).write(toFile: a.directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        try b.config(peer: a.port, role: "standby", partDuration: partDuration).write(toFile: b.directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        let boxA = try a.start()
        let boxB = try b.start()
        _ = try await boxA.waitForURL()
        _ = try await boxB.waitForURL()
        let edgeDirectory = try makeTemporaryDirectory(name)
        let (nginx, edgePort) = try EdgeCacheEndToEndTests.startEdge(in: edgeDirectory) {
            try EdgeCacheEndToEndTests.nginxConfig(directory: edgeDirectory, listen: $0, origin: a.port, backup: b.port)
        }
        do {
            try await eventually("both boxes list three segments", timeout: 40) {
                guard let pa = try? await a.playlist(), let pb = try? await b.playlist() else { return false }
                return pa.segments.filter { !$0.gap }.count >= 3 && pb.segments.filter { !$0.gap }.count >= 3
            }
        } catch {
            kill(nginx.processIdentifier, SIGQUIT)
            _ = try? await boxA.stop()
            _ = try? await boxB.stop()
            throw error
        }
        return (a, b, boxA, boxB, nginx, edgePort)
    }

    /// Frames lost and repeated between `times` (one every 1/30 s when none is), and the
    /// largest step.
    static func steps(_ times: [Double]) -> (lost: Int, repeated: Int, largest: Double) {
        let steps = zip(times, times.dropFirst()).map { $1 - $0 }
        let frame = 1.0 / 30
        let lost = steps.filter { $0 > 1.5 * frame }.map { Int(($0 / frame).rounded()) - 1 }.reduce(0, +)
        return (lost, steps.filter { $0 < 0.5 * frame }.count, steps.max() ?? 0)
    }

    /// Frame times (showinfo's pts_time) ffmpeg reports as it decodes, in order.
    static func frameTimes(_ log: String) -> [Double] {
        log.split(separator: "\n").compactMap { line in
            guard line.contains("Parsed_showinfo"), let range = line.range(of: "pts_time:") else { return nil }
            return Double(line[range.upperBound...].prefix { !$0.isWhitespace })
        }
    }

    /// The shipped edge in front of both boxes, the standby as `backup` (Config/nginx/nginx.conf,
    /// issue 35 item 4): ffmpeg plays through it while the primary is killed (-9) and started
    /// again; every frame's timestamp follows the one before by one frame, none lost and none
    /// repeated, across both moves.
    @Test func theEdgeMovesToTheStandbyAndBackWithoutAFrameLost() async throws {
        let pair = try await Self.pairBehindTheEdge("edge-pair", partDuration: 0)
        let (a, boxB, nginx) = (pair.a, pair.boxB, pair.nginx)
        var boxA = pair.boxA
        defer { _ = Task { try? await boxB.stop() } }
        defer {
            kill(nginx.processIdentifier, SIGQUIT)
            nginx.waitUntilExit()
        }
        let url = "http://127.0.0.1:\(pair.edgePort)/live/main/master.m3u8"
        async let played = Command.run("ffmpeg", ["-hide_banner", "-nostats", "-v", "info", "-re", "-i", url, "-map", "0:v:0", "-t", "36",
                                                  "-vf", "showinfo", "-f", "null", "-"], timeout: 120)
        try await Task.sleep(for: .seconds(12))
        _ = try await boxA.stop(signal: SIGKILL)
        try await Task.sleep(for: .seconds(10))
        boxA = try a.start()
        defer { _ = Task { [boxA] in try? await boxA.stop() } }
        let run = try await played
        let times = Self.frameTimes(run.stderr)
        let (lost, repeated, largest) = Self.steps(times)
        print("redundancy: through the edge, \(times.count) frames, \(lost) lost, \(repeated) repeated; largest step \(String(format: "%.3f", largest)) s")
        #expect(run.status == 0, "\(run.stderr.suffix(1500))")
        #expect(times.count >= 30 * 34, "ffmpeg played on: \(times.count) frames")
        #expect(lost == 0 && repeated == 0, "frames lost \(lost), repeated \(repeated)")
        _ = try await boxA.stop()
        _ = try await boxB.stop()
    }
}
