import Foundation
import HLSPlaylist
import SidelineTesting
import Testing
import TestSupport

/// Low-latency hls.js through the shipped edge while the primary of a redundant pair is
/// killed (-9) in the middle of a segment (issue 35, item 4). Apart from
/// `RedundancyEndToEndTests` because it holds a frame-exact figure with two encoding boxes,
/// nginx and Chromium on the machine: it runs in the test command's lane of suites that run
/// alone.
@Suite(.serialized) struct LowLatencyFailoverEndToEndTests {
    /// What a player showed across a move, from `hlsjs_play.py --frames` ([wall ms, painted
    /// capture ms or nil, media time ms, presented frames] per frame): frames whose painted
    /// moment cannot be read (a corrupt picture: another encoder's frames decoded against this
    /// one's references), frames skipped (the media time runs ahead of the frames presented: a
    /// jump over a hole; or the painted moment runs ahead of the media time by more than a
    /// frame) and repeated (the painted moment does not advance), and the longest wait between
    /// two frames. A frame Chromium itself leaves out under load (presented count +2, media time
    /// +2 frames) is neither. Each box runs the test pattern on its own, so the two paint the
    /// same presentation time up to a frame apart: the painted step at the move may differ from
    /// the media step by that much either way.
    static func judge(frames: [[Any]], from start: Double) -> (unreadable: Int, skipped: Int, repeated: Int, longestWait: Double, count: Int) {
        let frame = 1000.0 / 30
        let shown = frames.compactMap { row -> (wall: Double, clock: Double?, media: Double, presented: Double)? in
            guard row.count >= 4, let wall = (row[0] as? NSNumber)?.doubleValue, wall >= start,
                  let media = (row[2] as? NSNumber)?.doubleValue, let presented = (row[3] as? NSNumber)?.doubleValue else { return nil }
            return (wall, (row[1] as? NSNumber)?.doubleValue, media, presented)
        }
        var (skipped, repeated, wait) = (0, 0, 0.0)
        for (a, b) in zip(shown, shown.dropFirst()) {
            wait = max(wait, b.wall - a.wall)
            let presentedStep = max(1, b.presented - a.presented) * frame
            if b.media - a.media > presentedStep + frame / 2 { skipped += Int(((b.media - a.media - presentedStep) / frame).rounded()) }
            guard let ca = a.clock, let cb = b.clock else { continue }
            if cb - ca > b.media - a.media + frame * 1.1 { skipped += Int(((cb - ca - (b.media - a.media)) / frame).rounded()) }
            if cb - ca <= 0 { repeated += 1 }
        }
        return (shown.filter { $0.clock == nil }.count, skipped, repeated, wait / 1000, shown.count)
    }

    /// Low-latency hls.js through the shipped edge while the primary is killed (-9) in the
    /// middle of a segment (issue 35, item 4): the edge asks the standby for the next part, and
    /// the player shows every frame once, none corrupt, none skipped or repeated, with no wait
    /// longer than a segment. What makes it possible: a pair cuts an IDR at every part
    /// (`redundancy.keyframe_every_part`, on by default), so the standby's part decodes on its
    /// own; with one IDR per segment the same move showed 5-22 frames whose moment could not be
    /// read (failover.py, 2026-11-29).
    @Test func lowLatencyHlsjsThroughTheEdgeShowsEveryFrameOnceAcrossAMove() async throws {
        let pair = try await RedundancyEndToEndTests.pairBehindTheEdge("ll-edge-pair", partDuration: 0.2)
        let (b, boxA, boxB, nginx, edgePort) = (pair.b, pair.boxA, pair.boxB, pair.nginx, pair.edgePort)
        defer { _ = Task { try? await boxA.stop() } }
        defer { _ = Task { try? await boxB.stop() } }
        defer {
            kill(nginx.processIdentifier, SIGQUIT)
            nginx.waitUntilExit()
        }
        // The standby, which the edge moves to, lists every part INDEPENDENT: each starts with
        // its own IDR, and its playlist keeps the draft's rules for a pair.
        let text = String(decoding: try await http(URL(string: b.base + "/live/main/180p/index.m3u8")!).body, as: UTF8.self)
        let parts = text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-PART:") }
        #expect(!parts.isEmpty && parts.allSatisfy { $0.contains("INDEPENDENT=YES") }, "\(parts.prefix(12))")
        let violations = LowLatencyPlaylistRules.violations(of: text, keyframeEveryPart: true)
        #expect(violations.isEmpty, "\(violations)\n\(text.suffix(1200))")
        async let played = Command.run("python3", [Repository.root.path + "/Tests/Helpers/hlsjs_play.py", "http://127.0.0.1:\(edgePort)/live/main/master.m3u8",
                                                   "--hlsjs", Repository.root.path + "/.build-hlsjs/hls.mjs", "--seconds", "28", "--warmup", "0", "--frames"], timeout: 120)
        // Kill the primary in the middle of a segment (3 to 7 of its 10 parts out), 12 s in at
        // the earliest: a move at a segment's start would pass without keyframes in its parts.
        try await Task.sleep(for: .seconds(12))
        try await eventually("the primary is in the middle of a segment", timeout: 6, interval: 0.05) {
            guard let text = try? String(decoding: await http(URL(string: pair.a.base + "/live/main/180p/index.m3u8")!).body, as: UTF8.self),
                  let live = try? MediaPlaylist.parseLive(text) else { return false }
            return (3...7).contains(live.edge?.openParts.count ?? 0)
        }
        let killed = Date().timeIntervalSince1970 * 1000
        _ = try await boxA.stop(signal: SIGKILL)
        let run = try await played
        let report = try #require((try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any],
                                  "hlsjs_play.py exited \(run.status): \(run.stdout.suffix(2000)) \(run.stderr.suffix(3000))")
        let frames = report["frames"] as? [[Any]] ?? []
        let seen = Self.judge(frames: frames, from: killed - 4000)
        let after = frames.compactMap { ($0.first as? NSNumber)?.doubleValue }.filter { $0 > killed + 8000 }.count
        print("redundancy: hls.js low latency through the edge, from 4 s before the kill: \(seen.count) frames, \(seen.unreadable) unreadable, "
              + "\(seen.skipped) skipped, \(seen.repeated) repeated, longest wait \(String(format: "%.3f", seen.longestWait)) s; \(after) frames from 8 s after")
        #expect(report["fatal"] is NSNull, "\(report["fatal"] ?? "") \(report["errors"] ?? "")")
        #expect(after >= 30 * 4, "hls.js played on from the standby: \(after) frames from 8 s after the kill")
        #expect(seen.unreadable == 0 && seen.skipped == 0 && seen.repeated == 0,
                "frames unreadable \(seen.unreadable), skipped \(seen.skipped), repeated \(seen.repeated) of \(seen.count)")
        #expect(seen.longestWait < 2, "the longest wait between two frames, \(seen.longestWait) s, is under a segment")
        _ = try await boxB.stop()
    }
}
