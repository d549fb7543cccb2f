import Foundation
import HLSPlaylist
import Testing
import TestSupport

/// The Varnish edge (`scripts/edge`, Config/varnish) in front of two boxes, as the nginx files
/// are in RedundancyEndToEndTests and VenueBoxesEndToEndTests: a redundant pair across a kill of
/// its primary, and cameras on two boxes as one set. In the drills lane of scripts/test, beside
/// the other two-box suites; VarnishEdgeEndToEndTests (one origin, open and private) runs in the
/// other lane.
@Suite(.serialized) struct VarnishEdgeBoxesEndToEndTests {
    /// A redundant pair behind `scripts/edge --standby` (Config/varnish's fallback director and
    /// its one retry): ffmpeg plays through it while the primary is killed (-9) and started
    /// again; every frame's timestamp follows the one before by one frame, as through the nginx
    /// edge (RedundancyEndToEndTests.theEdgeMovesToTheStandbyAndBackWithoutAFrameLost).
    @Test func aPairMovesToTheStandbyAndBackThroughTheEdge() async throws {
        let a = RedundancyEndToEndTests.Box(port: try freePort(), directory: try makeTemporaryDirectory("varnish-pair-a"))
        let b = RedundancyEndToEndTests.Box(port: try freePort(), directory: try makeTemporaryDirectory("varnish-pair-b"))
        try a.config(peer: b.port, role: "primary").write(toFile: a.directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        try b.config(peer: a.port, role: "standby").write(toFile: b.directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        var boxA = try a.start()
        let boxB = try b.start()
        defer { _ = Task { try? await boxB.stop() } }
        _ = try await boxA.waitForURL()
        _ = try await boxB.waitForURL()
        let directory = try makeTemporaryDirectory("varnish-pair")
        let (edgePID, edge) = try await VarnishEdgeEndToEndTests.startEdge(directory: directory, arguments: ["--origin", "127.0.0.1:\(a.port)", "--standby", "127.0.0.1:\(b.port)"],
                                                       probe: "/live/main/master.m3u8")
        defer { VarnishEdgeEndToEndTests.stop(edgePID) }
        try await eventually("both boxes list three segments", timeout: 40) {
            guard let pa = try? await a.playlist(), let pb = try? await b.playlist() else { return false }
            return pa.segments.filter { !$0.gap }.count >= 3 && pb.segments.filter { !$0.gap }.count >= 3
        }
        async let played = Command.run("ffmpeg", ["-hide_banner", "-nostats", "-v", "info", "-re", "-i", edge + "/live/main/master.m3u8", "-map", "0:v:0", "-t", "30",
                                                  "-vf", "showinfo", "-f", "null", "-"], timeout: 120)
        try await Task.sleep(for: .seconds(10))
        _ = try await boxA.stop(signal: SIGKILL)
        try await Task.sleep(for: .seconds(8))
        boxA = try a.start()
        defer { _ = Task { [boxA] in try? await boxA.stop() } }
        let run = try await played
        let times = RedundancyEndToEndTests.frameTimes(run.stderr)
        let (lost, repeated, largest) = RedundancyEndToEndTests.steps(times)
        print("varnish pair: \(times.count) frames, \(lost) lost, \(repeated) repeated; largest step \(String(format: "%.3f", largest)) s")
        #expect(run.status == 0, "\(run.stderr.suffix(1500))")
        #expect(times.count >= 30 * 28, "ffmpeg played on: \(times.count) frames")
        #expect(lost == 0 && repeated == 0, "frames lost \(lost), repeated \(repeated)")
        _ = try await boxA.stop()
        _ = try await boxB.stop()
    }

    /// Cameras on two boxes behind the Varnish edge with a backends file written from
    /// Config/varnish/sideline-backends-boxes.vcl (goal's URLs to B, the rest to A): the set's
    /// master lists both angles, each angle's playlist comes from its box, and ffmpeg plays the
    /// set through the edge, as VenueBoxesEndToEndTests does through nginx.
    @Test func camerasOnTwoBoxesAreOneSetThroughTheEdge() async throws {
        let a = VenueBoxesEndToEndTests.Box(port: try freePort(), directory: try makeTemporaryDirectory("varnish-venue-a"))
        let b = VenueBoxesEndToEndTests.Box(port: try freePort(), directory: try makeTemporaryDirectory("varnish-venue-b"))
        try a.config(stream: "wide", title: "Wide", other: b.port, otherStream: "goal").write(toFile: a.directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        try b.config(stream: "goal", title: "Goal end", other: a.port, otherStream: "wide").write(toFile: b.directory + "/sideline.yaml", atomically: true, encoding: .utf8)
        let boxA = try a.start()
        defer { _ = Task { try? await boxA.stop() } }
        let boxB = try b.start()
        defer { _ = Task { try? await boxB.stop() } }
        _ = try await boxA.waitForURL()
        _ = try await boxB.waitForURL()
        let directory = try makeTemporaryDirectory("varnish-venue")
        let example = try String(contentsOfFile: Repository.root.path + "/Config/varnish/sideline-backends-boxes.vcl", encoding: .utf8)
        let backends = example
            .replacingOccurrences(of: ".host = \"10.0.0.2\";\n    .port = \"8080\";", with: ".host = \"127.0.0.1\";\n    .port = \"\(a.port)\";")
            .replacingOccurrences(of: ".host = \"10.0.0.12\";\n    .port = \"8080\";", with: ".host = \"127.0.0.1\";\n    .port = \"\(b.port)\";")
        #expect(backends.components(separatedBy: "127.0.0.1").count - 1 == 2, "both boxes' addresses written into the example")
        try backends.write(toFile: directory + "/boxes.vcl", atomically: true, encoding: .utf8)
        let (edgePID, edge) = try await VarnishEdgeEndToEndTests.startEdge(directory: directory, arguments: ["--backends", directory + "/boxes.vcl"], probe: "/live/goal/180p/index.m3u8")
        defer { VarnishEdgeEndToEndTests.stop(edgePID) }

        let setMaster = "/live/match/master.m3u8"
        var renditions: [(name: String, uri: String)] = []
        try await eventually("the set's master lists both angles", timeout: 40) {
            let answer = try await VenueBoxesEndToEndTests.text(edge + setMaster)
            renditions = answer.status == 200 ? SetMasterReading.renditions(answer.body) : []
            return renditions.count == 2
        }
        #expect(renditions.map(\.name) == ["Wide", "Goal end"])
        for angle in ["wide", "goal"] {
            let direct = try await VenueBoxesEndToEndTests.text((angle == "wide" ? a : b).base + "/live/\(angle)/180p/index.m3u8")
            let throughEdge = try await VenueBoxesEndToEndTests.text(edge + "/live/\(angle)/180p/index.m3u8")
            #expect(direct.status == 200 && throughEdge.status == 200, "\(angle): \(direct.status) direct, \(throughEdge.status) through the edge")
        }
        let goalOnA = try await VenueBoxesEndToEndTests.text(a.base + "/live/goal/180p/index.m3u8")
        #expect(goalOnA.status != 200, "box A does not serve goal: the edge's 200 came from B (\(goalOnA.status))")
        let played = try await Command.run("ffmpeg", ["-hide_banner", "-v", "error", "-i", edge + setMaster, "-t", "6", "-f", "null", "-"], timeout: 60)
        #expect(played.status == 0, "\(played.stderr.suffix(1500))")
        _ = try await boxA.stop()
        _ = try await boxB.stop()
    }
}
