import Foundation
import HLSPlaylist
import Testing
import TestSupport

/// Cameras spread over two boxes behind one edge (issue 35, item 5): box A encodes `wide`, box
/// B encodes `goal`, each config lists the other under `boxes`, and A, which encodes the default
/// angle, lists the set `match` of the two. Through the shipped edge (`Config/nginx/sideline-edge-boxes.conf`), the set's
/// master lists both angles (A's `RemoteAngleService` asking B about `goal`), each angle's URLs
/// reach the box that encodes it, and the two angles are on one timeline: slot n under number n
/// with the same date, the same first presentation timestamp and frames captured within a frame.
/// A marker of the set marks both angles with one id, through A and B (`MarkerRequest.forwarded`),
/// or neither when B refuses its part (502); the set's clip holds both angles, B's cut by B
/// (`VenueBoxClient`).
@Suite(.serialized) struct VenueBoxesEndToEndTests {
    struct Box {
        let port: Int
        let directory: String
        var base: String { "http://127.0.0.1:\(port)" }

        /// `viewerToken`: the stream's, making it private, with the venue's one signing key;
        /// such a box lists the set whichever box serves it (its credential then opens this
        /// box's angle), an open box only where it encodes the default angle.
        func config(stream: String, title: String, other: Int, otherStream: String, viewerToken: String? = nil) -> String {
            let set = stream == "wide" || viewerToken != nil ? "angle_sets:\n  - {name: match, title: Home v Away, streams: [wide, goal]}\n" : ""
            return """
            server: {host: 127.0.0.1, port: \(port)}
            boxes:
              - {url: 'http://127.0.0.1:\(other)', streams: [\(otherStream)]}
            \(set)part_duration: 0
            analyst: {token: \(VenueBoxesEndToEndTests.token)}
            \(viewerToken == nil ? "" : "access: {signing_key: \(VenueBoxesEndToEndTests.signingKey)}")
            video:
              frame_rate: 30
              ladder:
                - {name: 180p, width: 320, height: 180, bitrate: 200k, preset: ultrafast, profile: baseline}
            streams:
              - {name: \(stream), title: \(title), input: testpattern\(viewerToken.map { ", viewer_token: \($0)" } ?? "")}
            """
        }

        func start() throws -> SidelineProcess {
            try SidelineProcess(arguments: ["--config", directory + "/sideline.yaml", "--data-dir", directory + "/data"])
        }
    }

    static let token = "venue-analyst-0123456789"
    static let signingKey = "venue-signing-key-0123456789"

    /// The venue's edge (`nginxConfig`) in a new directory: nginx (the caller stops it by PID),
    /// its base URL, and the directory, whose access.log says which box answered.
    static func startEdge(_ name: String, boxA: Box, boxB: Box, edgeFile: String = "sideline-edge-boxes.conf") throws -> (nginx: Process, edge: String, directory: String) {
        let directory = try makeTemporaryDirectory(name)
        let (nginx, port) = try EdgeCacheEndToEndTests.startEdge(in: directory) {
            try nginxConfig(directory: directory, listen: $0, boxA: boxA.port, boxB: boxB.port, edgeFile: edgeFile)
        }
        return (nginx, "http://127.0.0.1:\(port)", directory)
    }

    static func text(_ url: String) async throws -> (status: Int, body: String) {
        let answer = try await http(URL(string: url)!)
        return (answer.status, String(decoding: answer.body, as: UTF8.self))
    }

    /// Both angles' playlists (`urls`, wide's then goal's) once they list three media segments
    /// for the same slots.
    static func listingSharedSlots(_ urls: [String]) async throws -> [MediaPlaylist] {
        var lists: [MediaPlaylist] = []
        try await eventually("both angles list three segments for the same slots", timeout: 40) {
            lists = []
            for url in urls {
                let answer = try await http(URL(string: url)!)
                guard answer.status == 200, let parsed = try? MediaPlaylist.parse(String(decoding: answer.body, as: UTF8.self)) else { return false }
                lists.append(parsed)
            }
            return sharedSlots(lists).count >= 3
        }
        return lists
    }

    /// The slots both playlists list with a media segment (no GAP), in order.
    static func sharedSlots(_ lists: [MediaPlaylist]) -> [Int] {
        let (wide, goal) = (RedundancyEndToEndTests.bySequence(lists[0]), RedundancyEndToEndTests.bySequence(lists[1]))
        return Set(wide.keys).intersection(goal.keys).filter { wide[$0]?.gap == false && goal[$0]?.gap == false }.sorted()
    }

    /// The set's clip at `url`, unpacked into `directory`: each of `names`' duration (0 when missing).
    static func clipDurations(_ url: String, names: [String], in directory: String) async throws -> [Double] {
        let zip = try await http(URL(string: url)!)
        #expect(zip.status == 200, "\(String(decoding: zip.body.prefix(300), as: UTF8.self))")
        try zip.body.write(to: URL(fileURLWithPath: directory + "/clip.zip"))
        _ = try await Command.run("unzip", ["-o", "-q", directory + "/clip.zip", "-d", directory + "/clip"])
        var durations: [Double] = []
        for name in names {
            let probe = try await Command.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", directory + "/clip/" + name])
            durations.append(Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
        }
        return durations
    }

    /// The edge of the venue: `goal`'s URLs to B, everything else to A, with the shipped
    /// `sideline-edge-boxes.conf` (the map its comment shows), or its private twin.
    static func nginxConfig(directory: String, listen: Int, boxA: Int, boxB: Int, edgeFile: String = "sideline-edge-boxes.conf") throws -> String {
        try EdgeCacheEndToEndTests.nginxConfig(directory: directory, listen: listen, edgeFile: edgeFile, upstreams: """
            upstream sideline_box_a { server 127.0.0.1:\(boxA) max_fails=1 fail_timeout=3s; keepalive 16; }
            upstream sideline_box_b { server 127.0.0.1:\(boxB) max_fails=1 fail_timeout=3s; keepalive 16; }
            map $request_uri $sideline_box {
                default sideline_box_a;
                "~^(/access/[^/]+)?/(live|vod)/(goal)/" sideline_box_b;
                "~^(/access/[^/]+)?/api/streams/(goal)/" sideline_box_b;
            }
            """)
    }

    @Test func aSetWhoseAnglesAreOnTwoBoxesIsOneSetThroughTheEdge() async throws {
        _ = try Command.which("nginx")
        let a = Box(port: try freePort(), directory: try makeTemporaryDirectory("venue-a"))
        let b = Box(port: try freePort(), directory: try makeTemporaryDirectory("venue-b"))
        try a.config(stream: "wide", title: "Wide", other: b.port, otherStream: "goal").write(toFile: a.directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        try b.config(stream: "goal", title: "Goal end", other: a.port, otherStream: "wide").write(toFile: b.directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        let boxA = try a.start()
        defer { _ = Task { try? await boxA.stop() } }
        // B starts 2.7 s later: its own first slot, the same numbers.
        try await Task.sleep(for: .milliseconds(2700))
        let boxB = try b.start()
        defer { _ = Task { try? await boxB.stop() } }
        _ = try await boxA.waitForURL()
        _ = try await boxB.waitForURL()

        let (nginx, edge, edgeDirectory) = try Self.startEdge("venue-edge", boxA: a, boxB: b)
        defer {
            kill(nginx.processIdentifier, SIGQUIT)
            nginx.waitUntilExit()
        }
        let text = Self.text

        // The set's master through the edge lists both angles once A has heard from B.
        let setMaster = "/live/match/master.m3u8"
        var renditions: [(name: String, uri: String)] = []
        try await eventually("the set's master lists both angles", timeout: 40) {
            let answer = try await text(edge + setMaster)
            renditions = answer.status == 200 ? SetMasterReading.renditions(answer.body) : []
            return renditions.count == 2
        }
        #expect(renditions.map(\.name) == ["Wide", "Goal end"])
        let playlists = try renditions.map { try #require(SetMasterReading.path(resolving: $0.uri, against: setMaster)) }
        #expect(playlists == ["/live/wide/180p/index.m3u8", "/live/goal/180p/index.m3u8"])

        // Both angles through the edge: slot n under number n, the same dates, three shared segments.
        let lists = try await Self.listingSharedSlots(playlists.map { edge + $0 })
        let (wide, goal) = (RedundancyEndToEndTests.bySequence(lists[0]), RedundancyEndToEndTests.bySequence(lists[1]))
        for (name, entries) in [("wide", wide), ("goal", goal)] {
            for (sequence, entry) in entries {
                let date = try #require(entry.programDateTime, "\(name) entry \(sequence) has a date")
                #expect(abs(date.timeIntervalSince1970 / 2 - Double(sequence)) < 1e-6, "\(name) lists slot \(date.timeIntervalSince1970 / 2) as \(sequence)")
            }
        }
        let sequence = try #require(Self.sharedSlots(lists).dropLast().last)
        let directory = try makeTemporaryDirectory("venue-frames")
        let fw = try await RedundancyEndToEndTests.firstFrame(edge + "/live/wide/180p/" + (wide[sequence]?.uri ?? ""), in: directory, name: "wide")
        let fg = try await RedundancyEndToEndTests.firstFrame(edge + "/live/goal/180p/" + (goal[sequence]?.uri ?? ""), in: directory, name: "goal")
        #expect(abs(fw.pts - fg.pts) < 1.0 / 30, "slot \(sequence) starts at PTS \(fw.pts) in wide, \(fg.pts) in goal")
        let (cw, cg) = (try #require(fw.captured, "wide's frame reads"), try #require(fg.captured, "goal's frame reads"))
        print("venue boxes: slot \(sequence), PTS \(fw.pts) / \(fg.pts), captured \(cw) / \(cg) (\(cw - cg) ms apart)")
        #expect(abs(cw - cg) <= 67, "the frames at slot \(sequence)'s first PTS were captured \(cw - cg) ms apart")

        // The page's description of the set, through the edge: goal on the other box, live.
        let api = try await text(edge + "/api/sets/match")
        let set = try #require(try JSONSerialization.jsonObject(with: Data(api.body.utf8)) as? [String: Any])
        let angles = try #require(set["angles"] as? [[String: Any]])
        #expect(angles.map { $0["stream"] as? String } == ["wide", "goal"])
        #expect(angles.map { $0["remote"] as? Bool } == [false, true])
        #expect(angles.last?["state"] as? String == "live" && angles.last?["title"] as? String == "Goal end")

        // A player of the set through the edge: ffmpeg probes every angle and plays the default.
        let played = try await Command.run("ffmpeg", ["-hide_banner", "-nostats", "-v", "info", "-i", edge + setMaster, "-map", "0:v:0", "-t", "4", "-f", "null", "-"], timeout: 90)
        #expect(played.status == 0, "\(played.stderr.suffix(1500))")
        // Each angle's requests reached the box that encodes it, and none was refused.
        let log = try String(contentsOfFile: edgeDirectory + "/access.log", encoding: .utf8).split(separator: "\n")
        let goalLines = log.filter { $0.hasPrefix("/live/goal/") }, wideLines = log.filter { $0.hasPrefix("/live/wide/") }
        #expect(!goalLines.isEmpty && goalLines.allSatisfy { $0.hasSuffix(":\(b.port)") || $0.hasSuffix(" -") }, "\(goalLines.prefix(5))")
        #expect(!wideLines.isEmpty && wideLines.allSatisfy { $0.hasSuffix(":\(a.port)") || $0.hasSuffix(" -") }, "\(wideLines.prefix(5))")
        let answered = { (line: Substring) in line.contains(" 200 ") || line.contains(" 206 ") }
        #expect((goalLines + wideLines).allSatisfy(answered), "\((goalLines + wideLines).filter { !answered($0) }.prefix(5))")

        // A marker of the set through the edge: both angles carry it, under one id.
        let auth = ["Authorization": "Bearer \(Self.token)", "Content-Type": "application/json"]
        let marked = try await http(URL(string: edge + "/api/sets/match/markers")!, method: "POST", body: #"{"label": "Try", "time": "now", "lead": 3}"#, headers: auth)
        #expect(marked.status == 201, "\(String(decoding: marked.body, as: UTF8.self))")
        let marker = try #require(try JSONSerialization.jsonObject(with: marked.body) as? [String: Any])
        let id = try #require(marker["id"] as? String)
        try await eventually("both angles list the marker", timeout: 20) {
            let (w, g) = (try await text(edge + playlists[0]).body, try await text(edge + playlists[1]).body)
            return w.contains(id) && g.contains(id)
        }
        // B cannot take a moment before its recording (it started later): A marks neither.
        let early = try #require(lists[0].segments.first?.programDateTime)
        let refused = try await http(URL(string: edge + "/api/sets/match/markers")!, method: "POST",
                                     body: #"{"label": "Too early", "time": "\#(ProgramDateTime.format(early.addingTimeInterval(0.1)))"}"#, headers: auth)
        let refusal = String(decoding: refused.body, as: UTF8.self)
        #expect(refused.status == 502 && refusal.contains("angle 'goal'") && refusal.contains("outside the recording"), "\(refused.status) \(refusal)")
        let listed = String(decoding: try await http(URL(string: edge + "/api/sets/match/markers")!).body, as: UTF8.self)
        #expect(listed.contains(id) && !listed.contains("Too early"), "\(listed)")
        // Removed through the set: gone from both.
        let removed = try await http(URL(string: edge + "/api/sets/match/markers/\(id)")!, method: "DELETE", headers: auth)
        #expect(removed.status == 204)
        try await eventually("neither angle lists the marker", timeout: 20) {
            let (w, g) = (try await text(edge + playlists[0]).body, try await text(edge + playlists[1]).body)
            return !w.contains(id) && !g.contains(id)
        }

        // The page on the set through the edge, in Chromium (Tests/Helpers/set_view_check.py):
        // a tile per angle, each playing from its own box, and a marker made on the page in both.
        let label = "Marked across boxes"
        let run = try await Command.run("python3", [Repository.root.path + "/Tests/Helpers/set_view_check.py", edge + "/", "--set", "match",
                                                    "--token", Self.token, "--label", label, "--seconds", "4"], timeout: 180)
        let report = try #require((try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any], "exited \(run.status): \(run.stdout.suffix(2000)) \(run.stderr.suffix(3000))")
        print("venue boxes: the page through the edge: \(report["captions"] ?? "") played \(report["advanced"] ?? "") s (rejoins \(report["rejoins"] ?? "")), marked \(report["markStatus"] ?? "")")
        #expect(report["tiles"] as? Int == 2, "\(report)")
        #expect(report["captions"] as? [String] == ["Wide", "Goal end"], "\(report)")
        let advanced = report["advanced"] as? [Double] ?? []
        #expect(advanced.count == 2 && advanced.allSatisfy { $0 >= 2 }, "each tile's video played \(advanced) s in 4 s (other clock steps \(report["jumps"] ?? ""), rejoins \(report["rejoins"] ?? "")); errors \(report["videoErrors"] ?? "")")
        #expect(report["markStatus"] as? Int == 201, "\(report["markBody"] ?? "")")
        try await eventually("the page's marker is in both angles", timeout: 20) {
            let (w, g) = (try await text(edge + playlists[0]).body, try await text(edge + playlists[1]).body)
            return w.contains("X-LABEL=\"\(label)\"") && g.contains("X-LABEL=\"\(label)\"")
        }

        // The set's clip through the edge: both angles, the same 4 s, B's cut by B.
        let from = try #require(wide[sequence]?.programDateTime)
        let clipURL = edge + "/api/sets/match/clip.zip?start=\(ProgramDateTime.format(from))&end=\(ProgramDateTime.format(from.addingTimeInterval(4)))"
        let durations = try await Self.clipDurations(clipURL, names: ["match-wide.mp4", "match-goal.mp4"], in: directory)
        print("venue boxes: the set's clip holds wide \(durations[0]) s and goal \(durations[1]) s")
        #expect(durations.allSatisfy { abs($0 - 4) < 0.2 }, "\(durations)")

        // Asked directly, a box refuses the other's angle, saying where it is served.
        let direct = try await text(a.base + "/live/goal/180p/index.m3u8")
        #expect(direct.status == 404 && direct.body.contains("served by another box"), "\(direct)")
        _ = try await boxA.stop()
        _ = try await boxB.stop()
    }

    /// A private set whose angles are on two boxes, through the shipped private edge for several
    /// boxes (`sideline-edge-boxes-private.conf`): each angle has its own viewer token and both
    /// boxes the venue's signing key; B lists the set too. One URL signed for the set (here by
    /// B, which does not serve the set: the key is the venue's) plays the set's master from A
    /// and B's angle from B; A lists B's private angle (asking with its staff token); the page,
    /// unlocked with a staff token, plays both tiles; the set's clip holds both angles. Without
    /// a credential, or with one for A's angle alone, B refuses its angle.
    @Test func aPrivateSetWhoseAnglesAreOnTwoBoxesOpensWithOneURLThroughTheEdge() async throws {
        _ = try Command.which("nginx")
        let a = Box(port: try freePort(), directory: try makeTemporaryDirectory("venue-private-a"))
        let b = Box(port: try freePort(), directory: try makeTemporaryDirectory("venue-private-b"))
        try a.config(stream: "wide", title: "Wide", other: b.port, otherStream: "goal", viewerToken: "wide-token-0123456789")
            .write(toFile: a.directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        try b.config(stream: "goal", title: "Goal end", other: a.port, otherStream: "wide", viewerToken: "goal-token-0123456789")
            .write(toFile: b.directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        let boxA = try a.start()
        defer { _ = Task { try? await boxA.stop() } }
        let boxB = try b.start()
        defer { _ = Task { try? await boxB.stop() } }
        _ = try await boxA.waitForURL()
        _ = try await boxB.waitForURL()

        let (nginx, edge, edgeDirectory) = try Self.startEdge("venue-private-edge", boxA: a, boxB: b, edgeFile: "sideline-edge-boxes-private.conf")
        defer {
            kill(nginx.processIdentifier, SIGQUIT)
            nginx.waitUntilExit()
        }
        let text = Self.text
        func signed(_ name: String, by box: Box) async throws -> String {
            let run = try await Command.run(Repository.sidelineExecutable, ["sign", name, "--config", box.directory + "/sideline.yaml", "--base", edge, "--expires", "30m"])
            let url = try #require(run.stdout.split(separator: "\n").last.map(String.init), "sideline sign \(name): \(run.stderr)")
            #expect(run.status == 0 && url.hasPrefix(edge + "/access/"), "\(run.stdout) \(run.stderr)")
            return url
        }
        // Signed on B, which lists the set without serving it.
        let setMaster = try await signed("match", by: b)
        let prefix = String(setMaster.dropLast("/live/match/master.m3u8".count))

        var renditions: [(name: String, uri: String)] = []
        try await eventually("the set's master lists both angles", timeout: 40) {
            let answer = try await text(setMaster)
            renditions = answer.status == 200 ? SetMasterReading.renditions(answer.body) : []
            return renditions.count == 2
        }
        #expect(renditions.map(\.name) == ["Wide", "Goal end"], "A lists B's private angle")
        let setPath = String(setMaster.dropFirst(edge.count))
        let playlists = try renditions.map { try #require(SetMasterReading.path(resolving: $0.uri, against: setPath)) }
        #expect(playlists == [prefix.dropFirst(edge.count) + "/live/wide/180p/index.m3u8", prefix.dropFirst(edge.count) + "/live/goal/180p/index.m3u8"], "\(playlists)")

        // Each angle with the set's credential, from its own box: three shared slots.
        let lists = try await Self.listingSharedSlots(playlists.map { edge + $0 })
        let played = try await Command.run("ffmpeg", ["-hide_banner", "-nostats", "-v", "error", "-i", prefix + "/live/goal/master.m3u8", "-t", "3", "-f", "null", "-"], timeout: 60)
        #expect(played.status == 0, "ffmpeg plays B's angle with the set's URL: \(played.stderr.suffix(1500))")

        // B refuses its angle without a credential, and with one for A's angle alone.
        #expect(try await text(edge + "/live/goal/180p/index.m3u8").status == 401)
        let wideOnly = try await signed("wide", by: a)
        let wideOnlyPath = String(wideOnly.dropLast("/live/wide/master.m3u8".count).dropFirst(edge.count)) + "/live/goal/180p/index.m3u8"
        #expect(try await text(edge + wideOnlyPath).status == 403, "the edge passes B's refusal on (its status: auth_request keeps no body)")
        let other = try await text(b.base + wideOnlyPath)
        #expect(other.status == 403 && other.body.contains("signed for 'wide'"), "\(other)")
        // Asked directly with the set's credential (without one it is 401, saying nothing), B
        // says where the set is served.
        let direct = try await text(b.base + setPath)
        #expect(direct.status == 404 && direct.body.contains("served by the box that encodes its default angle"), "\(direct)")

        // Another spelling of a private segment the edge holds, which its map sends to the
        // other box (which knows nothing of the stream, so judges it open): never the stored
        // copy (the edge's key has the box in it), whichever way.
        let goalSegment = try #require(lists[1].segments.last { !$0.gap }?.uri)
        let wideSegment = try #require(lists[0].segments.last { !$0.gap }?.uri)
        let curl = EdgeCacheEndToEndTests()
        for (stream, file) in [("goal", goalSegment), ("wide", wideSegment)] {
            let stored = try await curl.fetch(prefix + "/live/\(stream)/180p/" + file, discardBody: true)
            #expect(stored.status == 200, "\(stream) with the set's credential: \(stored)")
        }
        let spellings = ["/live/%67oal/180p/" + goalSegment, "//live/goal/180p/" + goalSegment, "/./live/goal/180p/" + goalSegment,
                         "/live/wide/../goal/180p/" + goalSegment, "/live/goal/../wide/180p/" + wideSegment, "/live/%77ide/180p/" + wideSegment]
        for spelling in spellings {
            let answer = try await curl.fetch(edge + spelling, discardBody: true)
            #expect([401, 403, 404].contains(answer.status), "\(spelling) without a credential: \(answer.status) \(answer.headers)")
        }

        // One angle's viewer token does not open the set: A does not know goal's token, so no
        // token is the set's (it would have opened goal on B through the set's signed URL).
        let byAngleToken = try await http(URL(string: edge + "/api/sets/match")!, headers: ["Authorization": "Bearer wide-token-0123456789"])
        #expect(byAngleToken.status == 404, "\(String(decoding: byAngleToken.body, as: UTF8.self))")

        // The page through the edge, unlocked with the analyst's token: both tiles play.
        let run = try await Command.run("python3", [Repository.root.path + "/Tests/Helpers/set_view_check.py", edge + "/", "--set", "match", "--viewer-token", Self.token,
                                                    "--token", Self.token, "--label", "Private across boxes", "--seconds", "4"], timeout: 180)
        let report = try #require((try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any], "exited \(run.status): \(run.stdout.suffix(2000)) \(run.stderr.suffix(3000))")
        print("venue boxes, private: the page through the edge: \(report["captions"] ?? "") played \(report["advanced"] ?? "") s (rejoins \(report["rejoins"] ?? "")), marked \(report["markStatus"] ?? "")")
        #expect(report["captions"] as? [String] == ["Wide", "Goal end"], "\(report)")
        let advanced = report["advanced"] as? [Double] ?? []
        #expect(advanced.count == 2 && advanced.allSatisfy { $0 >= 2 }, "each tile's video played \(advanced) s in 4 s (other clock steps \(report["jumps"] ?? ""), rejoins \(report["rejoins"] ?? "")); errors \(report["videoErrors"] ?? "")")
        #expect(report["markStatus"] as? Int == 201, "\(report["markBody"] ?? "")")

        // The set's clip with the set's URL: both angles, B's cut by B with the same credential.
        let wide = RedundancyEndToEndTests.bySequence(lists[0])
        let from = try #require(Self.sharedSlots(lists).dropLast().last.flatMap { wide[$0]?.programDateTime })
        let clipURL = prefix + "/api/sets/match/clip.zip?start=\(ProgramDateTime.format(from))&end=\(ProgramDateTime.format(from.addingTimeInterval(4)))"
        let durations = try await Self.clipDurations(clipURL, names: ["match-wide.mp4", "match-goal.mp4"], in: try makeTemporaryDirectory("venue-private-clip"))
        print("venue boxes, private: the set's clip holds wide \(durations[0]) s and goal \(durations[1]) s")
        #expect(durations.allSatisfy { abs($0 - 4) < 0.2 }, "\(durations)")

        // Every request for B's angle with a credential reached B; none that carried the set's was refused.
        let log = try String(contentsOfFile: edgeDirectory + "/access.log", encoding: .utf8).split(separator: "\n")
        let setLines = log.filter { $0.hasPrefix(prefix.dropFirst(edge.count) + "/live/goal/") }
        #expect(!setLines.isEmpty && setLines.allSatisfy { $0.hasSuffix(":\(b.port)") || $0.hasSuffix(" -") }, "\(setLines.prefix(5))")
        #expect(setLines.allSatisfy { $0.contains(" 200 ") || $0.contains(" 206 ") }, "\(setLines.filter { !$0.contains(" 200 ") }.prefix(5))")
        _ = try await boxA.stop()
        _ = try await boxB.stop()
    }
}
