import Foundation
import Testing
import TestSupport

/// The page's angle sync rule (`Sources/WatchPage/Resources/page-sync.js`) run in headless
/// Chromium (`--dump-dom` of a file page that loads the script from the repository): what
/// each angle is told to do for given positions, which angle leads, and, with fake video
/// objects that advance by their playback rate every 100 ms, that the loop the page runs
/// brings every angle within a frame of the leader after drift, a seek, a stall and live play
/// that cannot seek. About a second per run (one browser start for every case).
@Suite struct PageSyncTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/WatchPage/Resources/page-sync.js")

    /// One follower's sample beside a leader at `leaderAt` (both ready, playing).
    struct Case: Codable {
        var name: String
        var samples: [Sample]
        var leader: Int = 0
        var playing: Bool = true
    }

    struct Sample: Codable {
        var time: Double
        var offset: Double = 0
        var ready: Bool = true
        var seeking: Bool = false
        var ended: Bool = false
        var paused: Bool = false
        var seekable: [[Double]] = [[0, 3600]]
    }

    struct Action: Codable, Equatable {
        var kind: String
        var rate: Double?
        var to: Double?
        var at: Double?
    }

    struct Simulation: Codable {
        var spread: Double
        var leader: Int
        var leaders: [Int]
        var rejoins: Int
        /// Whether a video with no seekable range was ever given a rate other than 1 or paused.
        var touchedLive: Bool
        var ticksToFrame: Int?
    }

    struct Results: Codable {
        var decisions: [String: [Action]]
        var leaders: [String: Int]
        var simulations: [String: Simulation]
    }

    static let frame = 1.0 / 30

    /// Runs the cases and the simulations in one Chromium start.
    static func run(_ cases: [Case], leaderCases: [String: (samples: [Sample], preferred: Int, current: Int?)]) async throws -> Results {
        let directory = try makeTemporaryDirectory("page-sync")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let encoder = JSONEncoder()
        // An offset not known yet is NaN in the page: "NaN" here, turned back in the page.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        let casesJSON = String(decoding: try encoder.encode(cases), as: UTF8.self)
        let leaderJSON = String(decoding: try encoder.encode(leaderCases.mapValues { LeaderCase(samples: $0.samples, preferred: $0.preferred, current: $0.current) }), as: UTF8.self)
        let page = """
        <!doctype html><html><body><pre id="out"></pre>
        <script src="\(script.absoluteString)"></script>
        <script>
        const nan = (o) => JSON.parse(JSON.stringify(o), (k, v) => v === "NaN" ? NaN : v);
        const cases = nan(\(casesJSON)), leaderCases = nan(\(leaderJSON));
        const decisions = {}, leaders = {}, simulations = {};
        for (const c of cases) decisions[c.name] = SidelineSync.decide(c.samples, c.leader, c.playing);
        for (const [name, c] of Object.entries(leaderCases)) leaders[name] = SidelineSync.chooseLeader(c.samples, c.preferred, c.current);
        \(simulationJS)
        document.getElementById("out").textContent = JSON.stringify({ decisions, leaders, simulations });
        </script></body></html>
        """
        let json = try await HeadlessChromium.output(of: page, in: directory)
        return try JSONDecoder().decode(Results.self, from: Data(json.utf8))
    }

    struct LeaderCase: Codable {
        var samples: [Sample]
        var preferred: Int
        var current: Int?
    }

    /// Fake videos: `currentTime` advances by `playbackRate` x 0.1 s a tick unless paused,
    /// stalled (readyState 2) or seeking; a seek takes one tick. Each scenario runs the page's
    /// loop (sample, chooseLeader, decide, apply) every tick and reports the final spread, the
    /// leaders it went through and the first tick from which every angle stayed within a frame
    /// of the leader. A rejoin (live, no seekable range) loads every fake again: three ticks
    /// with no data, then each at the live point, as Chromium does.
    static let simulationJS = """
    function fake(t, seekable) {
      const v = { t, rate: 1, paused: false, seeking: false, ended: false, readyState: 4, touched: false,
        seekable: { length: seekable ? 1 : 0, start: () => 0, end: () => 3600 },
        play() { this.paused = false; return Promise.resolve(); }, pause() { this.paused = true; if (!seekable) this.touched = true; } };
      Object.defineProperty(v, "currentTime", { get() { return this.t; }, set(x) { this.t = x; this.seeking = true; } });
      Object.defineProperty(v, "playbackRate", { get() { return this.rate; }, set(x) { this.rate = x; if (!seekable && x !== 1) this.touched = true; } });
      return v;
    }
    function simulate(videos, offsets, ticks, events, livePoint) {
      let leader = 0, settled = null, rejoins = 0, loading = 0;
      const seen = [0];
      for (let tick = 0; tick < ticks; tick++) {
        (events[tick] || (() => {}))(videos);
        if (loading && --loading === 0) videos.forEach((v, i) => { v.t = livePoint(tick) - offsets[i]; v.readyState = 4; });
        for (const v of videos) {
          if (v.seeking) v.seeking = false;
          else if (!v.paused && v.readyState >= 3) v.t += 0.1 * v.playbackRate;
        }
        const samples = videos.map((v, i) => SidelineSync.sample(v, offsets[i]));
        leader = SidelineSync.chooseLeader(samples, 0, leader);
        if (seen[seen.length - 1] !== leader) seen.push(leader);
        if (SidelineSync.apply(videos, SidelineSync.decide(samples, leader, true), true) && !loading) {
          rejoins++; loading = 3; videos.forEach((v) => { v.readyState = 0; });
        }
        const after = videos.map((v, i) => SidelineSync.sample(v, offsets[i]));
        const spread = Math.max(...after.map((s) => Math.abs(SidelineSync.at(s) - SidelineSync.at(after[leader]))));
        if (spread <= 1 / 30 && !loading) { if (settled == null) settled = tick; } else settled = null;
      }
      const final = videos.map((v, i) => v.t + offsets[i]);
      return { spread: Math.max(...final.map((t) => Math.abs(t - final[leader]))), leader, leaders: seen, rejoins, ticksToFrame: settled,
        touchedLive: videos.some((v) => v.touched) };
    }
    // Replay (seekable): one angle 0.4 s ahead, one 3 s behind; the default angle stalls for
    // 1 s at tick 40 and comes back; then a seek of the default alone (a rung switch's jump).
    simulations.replay = simulate([fake(100, true), fake(100.4, true), fake(97, true)], [0, 0, 0], 200, {
      40: (v) => { v[0].readyState = 2; }, 50: (v) => { v[0].readyState = 4; }, 120: (v) => { v[0].currentTime = 101; } });
    // Live in Chromium (no seekable range): four angles at the live point, one of which joined a
    // segment later (offset 2); the third stalls for 1 s at tick 20 and falls behind.
    simulations.live = simulate([fake(60, false), fake(58, false), fake(60, false), fake(60, false)], [0, 2, 0, 0], 150, {
      20: (v) => { v[2].readyState = 2; }, 30: (v) => { v[2].readyState = 4; } }, (tick) => 60 + 0.1 * (tick + 1));
    """

    @Test func eachAngleIsToldWhatBringsItToTheLeader() async throws {
        let lead = Sample(time: 100)
        let live = [[Double]]()
        let cases: [Case] = [
            Case(name: "in step", samples: [lead, Sample(time: 100.005)]),
            Case(name: "behind a little", samples: [lead, Sample(time: 99.9)]),
            Case(name: "ahead a little", samples: [lead, Sample(time: 100.3)]),
            Case(name: "ahead most of a second", samples: [lead, Sample(time: 100.8)]),
            Case(name: "behind 3 s, seekable", samples: [lead, Sample(time: 97)]),
            Case(name: "behind 3 s, live", samples: [lead, Sample(time: 97, seekable: live)]),
            Case(name: "ahead 0.1 s, live", samples: [lead, Sample(time: 100.1, seekable: live)]),
            Case(name: "within a frame, live", samples: [lead, Sample(time: 99.98, seekable: live)]),
            Case(name: "buffering, live", samples: [lead, Sample(time: 97, ready: false, seekable: live)]),
            Case(name: "behind 3 s, past the seekable end", samples: [lead, Sample(time: 97, seekable: [[0, 98]])]),
            Case(name: "started 5 s later", samples: [lead, Sample(time: 95, offset: 5)]),
            Case(name: "before its recording", samples: [Sample(time: 3), Sample(time: 0, offset: 5)]),
            Case(name: "seeking", samples: [lead, Sample(time: 50, seeking: true)]),
            Case(name: "buffering behind", samples: [lead, Sample(time: 99.5, ready: false)]),
            Case(name: "paused set", samples: [lead, Sample(time: 100.1)], playing: false),
            Case(name: "leader not first", samples: [Sample(time: 99.8), lead], leader: 1),
            Case(name: "place not known", samples: [lead, Sample(time: 3, offset: .nan)]),
            Case(name: "leader's place not known", samples: [Sample(time: 3, offset: .nan), Sample(time: 4)]),
        ]
        let results = try await Self.run(cases, leaderCases: [:])
        let d = results.decisions
        func rate(_ name: String) -> Double { d[name]?[1].rate ?? .nan }
        #expect(d["in step"]?[0] == Action(kind: "lead"))
        #expect(d["in step"]?[1] == Action(kind: "rate", rate: 1), "within a quarter of a frame: left alone")
        #expect(abs(rate("behind a little") - 1.1) < 1e-9, "behind 0.1 s: 10% faster")
        #expect(abs(rate("ahead a little") - 0.7) < 1e-9)
        #expect(rate("ahead most of a second") == 0.5, "the nudge is bounded")
        #expect(d["behind 3 s, seekable"]?[1].kind == "seek" && abs((d["behind 3 s, seekable"]?[1].to ?? 0) - 100.15) < 1e-9, "\(d["behind 3 s, seekable"] ?? [])")
        // No seekable range (live in Chromium): never a rate or a seek, every angle rejoins.
        #expect(d["behind 3 s, live"]?[1] == Action(kind: "rejoin"))
        #expect(d["ahead 0.1 s, live"]?[1] == Action(kind: "rejoin"))
        #expect(d["within a frame, live"]?[1] == Action(kind: "wait"))
        #expect(d["buffering, live"]?[1] == Action(kind: "wait"), "a stall is waited out before anything is decided")
        #expect(d["behind 3 s, past the seekable end"]?[1] == Action(kind: "rate", rate: 1.5), "cannot seek there: the largest nudge")
        #expect(d["started 5 s later"]?[1] == Action(kind: "rate", rate: 1), "offsets put the same moment at different positions")
        #expect(d["before its recording"]?[1] == Action(kind: "hold"))
        #expect(d["seeking"]?[1] == Action(kind: "wait"))
        #expect(d["buffering behind"]?[1] == Action(kind: "wait"))
        #expect(d["paused set"]?[1].kind == "seek" && abs((d["paused set"]?[1].to ?? 0) - 100) < 1e-9, "paused: to the leader's frame exactly")
        #expect(d["leader not first"]?[1] == Action(kind: "lead") && abs((d["leader not first"]?[0].rate ?? 0) - 1.2) < 1e-9)
        #expect(d["place not known"]?[1] == Action(kind: "wait"), "a live angle whose join is not known yet is left to play")
        #expect(d["leader's place not known"]?[1] == Action(kind: "wait"))
    }

    @Test func theDefaultAngleLeadsUnlessItStalls() async throws {
        let ok = Sample(time: 100), stalled = Sample(time: 98, ready: false)
        let results = try await Self.run([], leaderCases: [
            "default healthy": ([ok, ok, ok], 0, 0),
            "first tick": ([ok, ok], 0, nil),
            "default stalls": ([stalled, ok, ok], 0, 0),
            "default back but behind": ([Sample(time: 98), ok, ok], 0, 1),
            "default back in step": ([Sample(time: 100.02), ok, ok], 0, 1),
            "leader stalls too": ([stalled, Sample(time: 100, ready: false), ok], 0, 1),
            "every angle stalls": ([stalled, stalled], 0, 1),
            "default's place not known": ([Sample(time: 3, offset: .nan), ok], 0, 0),
        ])
        let l = results.leaders
        #expect(l["default healthy"] == 0 && l["first tick"] == 0)
        #expect(l["default stalls"] == 1, "another angle leads while the default stalls")
        #expect(l["default back but behind"] == 1, "the default is pulled into step before it leads again")
        #expect(l["default back in step"] == 0)
        #expect(l["leader stalls too"] == 2)
        #expect(l["every angle stalls"] == 0)
        #expect(l["default's place not known"] == 1)
    }

    @Test func theLoopBringsEveryAngleWithinAFrame() async throws {
        let results = try await Self.run([], leaderCases: [:])
        let replay = try #require(results.simulations["replay"]), live = try #require(results.simulations["live"])
        #expect(replay.spread <= Self.frame, "replay: \(replay)")
        #expect(replay.leaders.first == 0 && replay.leaders.contains(1) && replay.leader == 0, "the default stalled, another led, the default leads again: \(replay)")
        #expect((replay.ticksToFrame ?? 200) < 200, "\(replay)")
        #expect(!replay.touchedLive && !live.touchedLive, "a live video with no seekable range is never rated or paused")
        #expect(live.spread <= Self.frame && live.rejoins == 1, "live: one rejoin after the stall brings every angle back: \(live)")
        #expect((live.ticksToFrame ?? 150) < 50, "live: \(live)")
    }

    /// A live player's origin from what it holds (`originFrom`, `confirmOrigin`): segment k of
    /// a 2 s grid starts at T + 2000k ms. A player that joined at segment 1 (whatever it
    /// fetched: Chromium plays segments an earlier load fetched from its cache, unlisted) holds
    /// 5.87 s once segment 3 is in (130 ms short of its end, as measured): its origin is
    /// segment 1's start. Taken only when two segments agree. And how a playlist's entries are
    /// read, and how long rejoins wait.
    @Test func aLivePlayersOriginIsWhereItsBufferedRangeSaysItJoined() async throws {
        let directory = try makeTemporaryDirectory("page-origin")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let page = """
        <!doctype html><html><body><pre id="out"></pre>
        <script src="\(Self.script.absoluteString)"></script>
        <script>
        const T = 1795798000000, starts = [0, 1, 2, 3, 4].map((k) => T + 2000 * k), o = (x) => x === null ? "none" : x - T;
        const c = (p, r) => { const x = SidelineSync.confirmOrigin(p, r); return `${x.reading && x.reading.segment}:${isFinite(x.origin) ? x.origin - T : "none"}`; };
        document.getElementById("out").textContent = JSON.stringify({
          joinedAt1: o(SidelineSync.originFrom(T + 8000, 5.87, starts, 2)),
          exact: o(SidelineSync.originFrom(T + 8000, 8, starts, 2)),
          betweenSegments: o(SidelineSync.originFrom(T + 8000, 5.0, starts, 2)),
          segmentNotListed: o(SidelineSync.originFrom(NaN, 5.87, starts, 2)),
          nothingBuffered: o(SidelineSync.originFrom(T + 8000, 0, starts, 2)),
          first: c(null, { segment: "3", origin: T + 2000 }),
          agreed: c({ segment: "3", origin: T + 2000 }, { segment: "4", origin: T + 2000 }),
          sameSegmentTwice: c({ segment: "3", origin: T + 2000 }, { segment: "3", origin: T + 2000 }),
          disagreed: c({ segment: "0", origin: T - 16000 }, { segment: "3", origin: T + 2000 }),
          unreadable: c({ segment: "3", origin: T + 2000 }, null),
          rejoinWaits: [0, 1, 2, 3, 4, 5, 6, 50].map((n) => SidelineSync.rejoinWait(n)).join(","),
          startsTogether: [0, 1, 2, 10].map((n) => SidelineSync.startsTogether(n)).join(","),
          listed: SidelineSync.listedSegments("#EXTM3U\\n#EXTINF:2.0,\\n000000.ts\\n#EXT-X-PROGRAM-DATE-TIME:2026-11-27T16:56:32.000Z\\n#EXTINF:2.000000,\\n000001.ts?token=x\\n#EXTINF:1.5,\\n../b/000002.ts\\n")
            .map((e) => `${e.name}@${isFinite(e.start) ? e.start - Date.parse("2026-11-27T16:56:32.000Z") : "none"}+${e.duration}`).join(","),
        });
        </script></body></html>
        """
        let json = try await HeadlessChromium.output(of: page, in: directory)
        let r = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
        func value(_ key: String) -> String { "\(r[key] ?? "missing")" }
        #expect(value("joinedAt1") == "2000", "\(json)")
        #expect(value("exact") == "0")
        #expect(value("betweenSegments") == "none", "a reading a second from any segment's start is not snapped")
        #expect(value("segmentNotListed") == "none" && value("nothingBuffered") == "none")
        #expect(value("first") == "3:none", "\(json)")
        #expect(value("agreed") == "4:2000", "\(json)")
        #expect(value("sameSegmentTwice") == "3:none", "one segment read twice is one reading")
        #expect(value("disagreed") == "3:none")
        #expect(value("unreadable") == "3:none", "a reading that did not snap keeps the last one")
        // A media playlist's entries, dated from its first date on (the query and path dropped).
        #expect(value("listed") == "000000.ts@none+2,000001.ts@0+2,000002.ts@2000+1.5", "\(json)")
        // Rejoins: three 5 s apart, then doubling to 40 s.
        #expect(value("rejoinWaits") == "5000,5000,5000,10000,20000,40000,40000,40000", "\(json)")
        // Only the page's first live load starts its players paused and together.
        #expect(value("startsTogether") == "true,false,false,false", "\(json)")
    }
}
