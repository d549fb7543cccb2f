import Foundation
import Testing
import TestSupport

/// The page's decisions (`Sources/WatchPage/Resources/page-state.js`, `SidelinePage`) row by
/// row in headless Chromium, the browser the page runs in: what the listings open and the
/// picker shows, which angles the grid plays and how its tiles look, the bit-rate samples, and
/// what a mark and a clip ask for. Every row is one call of a pure function; one browser start
/// runs them all and prints each result as JSON, compared here.
@Suite struct PageStateTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/WatchPage/Resources/page-state.js")

    /// Each row: a name, and the expression whose JSON value the row checks.
    static let rows: [(name: String, expression: String, expected: String)] = [
        // access
        ("an open set is open", #"SidelinePage.access.setIsOpen({private: true, angles: [{state: "live"}]})"#, "true"),
        ("a private set with a locked angle is locked", #"SidelinePage.access.setIsOpen({private: true, angles: [{state: "live"}, {state: "locked"}]})"#, "false"),
        ("listings merge; a token opens what it covers",
         #"SidelinePage.access.merge([{streams: [{id: "wide"}], locked: [{id: "tactical"}, {id: "bench"}]}, {streams: [{id: "tactical"}]}], [{sets: [{name: "match", private: true, angles: [{state: "locked"}]}]}, {sets: [{name: "match", private: true, angles: [{state: "live"}]}]}], null)"#,
         #"{"streams":[{"id":"wide"},{"id":"tactical"}],"locked":["bench"],"sets":[{"name":"match","private":true,"angles":[{"state":"live"}]}],"lockedSets":[]}"#),
        ("a set the address names that no listing shows asks for its token",
         #"SidelinePage.access.merge([{streams: []}], [{sets: []}], "final").lockedSets"#, #"["final"]"#),
        ("the picker lists sets first, then streams, locked ones marked",
         #"SidelinePage.access.picker({sets: [{name: "match", title: "Cup final", angles: [1, 2, 3]}], lockedSets: ["youth"], streams: [{id: "wide", title: "Wide"}, {id: "raw"}], locked: ["bench"]})"#,
         #"{"values":["set:match","set:youth","wide","raw","bench"],"labels":["▦ Cup final (3 angles)","🔒 ▦ youth (private)","Wide (wide)","raw","🔒 bench (private)"]}"#),
        ("a set is shown with its default angle's stream",
         #"(() => { const c = SidelinePage.access.choose("set:match", {sets: [{name: "match", angles: [{stream: "tv"}, {stream: "wide", default: true}]}], lockedSets: [], streams: [{id: "tv"}, {id: "wide"}], locked: []}); return [c.set.name, c.info.id, c.unlock]; })()"#,
         #"["match","wide",false]"#),
        ("a locked stream asks for a token",
         #"(() => { const c = SidelinePage.access.choose("bench", {sets: [], lockedSets: [], streams: [], locked: ["bench"]}); return [c.set, c.info, c.unlock]; })()"#, "[null,null,true]"),
        ("the address names a set or a stream", #"[SidelinePage.access.address("set:cup final"), SidelinePage.access.address("wide")]"#, #"["?set=cup%20final","?stream=wide"]"#),
        // grid
        ("a stream is one angle", #"SidelinePage.grid.anglesOf(null, null, {id: "wide", master: "/m", vodMaster: "/v"}).map((a) => [a.stream, a.master, a.vod])"#, #"[["wide","/m","/v"]]"#),
        ("a set plays its first four angles",
         #"SidelinePage.grid.anglesOf({angles: ["a", "b", "c", "d", "e"].map((s) => ({stream: s}))}, null).map((a) => a.stream)"#, #"["a","b","c","d"]"#),
        ("an angle without a title is called by its stream", #"SidelinePage.grid.anglesOf({angles: [{stream: "a", title: "Main"}, {stream: "b"}]}, null).map((a) => a.title)"#, #"["Main","b"]"#),
        ("a tile clicked is large; clicked again, the grid", #"[SidelinePage.grid.enlarge(null, 2), SidelinePage.grid.enlarge(2, 2), SidelinePage.grid.enlarge(2, 1)]"#, "[2,null,1]"),
        ("the heard angle is the large one, else the default", #"[SidelinePage.grid.heard(null, 3), SidelinePage.grid.heard(2, 3), SidelinePage.grid.heard(5, 3)]"#, "[0,2,0]"),
        ("a picked angle takes the last tile",
         #"(() => { const set = {angles: ["a", "b", "c", "d", "e"].map((s) => ({stream: s}))}; const p = SidelinePage.grid.pick(SidelinePage.grid.anglesOf(set, null), set, "e"); return [p.index, p.angles.map((a) => a.stream)]; })()"#,
         #"[3,["a","b","c","e"]]"#),
        ("an angle shown already is not picked again", #"SidelinePage.grid.pick([{stream: "a"}], {angles: [{stream: "a"}]}, "a")"#, "null"),
        ("one angle: no grid, the player's controls",
         #"SidelinePage.grid.layout({angles: [{title: "", state: "live"}], large: null, sound: true}, null)"#,
         #"{"className":"angles","controls":true,"tiles":[{"big":false,"caption":"","muted":null}],"picker":null}"#),
        ("a grid with a large tile: only the heard angle sounds, states shown when not live",
         #"SidelinePage.grid.layout({angles: [{title: "TV", state: "live"}, {title: "Wide", state: "inputLost"}], large: 1, sound: true}, {angles: [1, 2]})"#,
         #"{"className":"angles grid large","controls":false,"tiles":[{"big":false,"caption":"TV","muted":true},{"big":true,"caption":"Wide · inputLost","muted":false}],"picker":null}"#),
        ("sound off: every tile muted",
         #"SidelinePage.grid.layout({angles: [{title: "a"}, {title: "b"}], large: null, sound: false}, null).tiles.map((t) => t.muted)"#, "[true,true]"),
        ("more than four angles: the picker, the shown ones on",
         #"SidelinePage.grid.layout({angles: [{stream: "a", title: "a"}, {stream: "b", title: "b"}], large: null, sound: false}, {angles: ["a", "b", "c", "d", "e"].map((s) => ({stream: s}))}).picker.map((p) => p.on)"#,
         "[true,true,false,false,false]"),
        ("angle states follow the listing", #"SidelinePage.grid.states([{stream: "a", state: "live"}, {stream: "z", state: "live"}], {angles: [{stream: "a", state: "ended"}]})"#, #"["ended","live"]"#),
        // playback
        ("the mode label", #"[SidelinePage.playback.mode("live"), SidelinePage.playback.mode("replay")]"#,
         #"[{"text":"live","className":"state live"},{"text":"replay","className":"state ended"}]"#),
        ("the first sample is the average rate", #"SidelinePage.playback.sample({}, [{name: "720p", durationRecorded: 10, bytesRecorded: 5000000, averageBitRate: 4000000}], 7)"#,
         #"{"720p":[{"at":7,"duration":10,"bytes":5000000,"rate":4000000}]}"#),
        ("a later sample is the rate since the last one",
         #"SidelinePage.playback.sample({"720p": [{at: 7, duration: 10, bytes: 5000000, rate: 4000000}]}, [{name: "720p", durationRecorded: 12, bytesRecorded: 5500000, averageBitRate: 0}], 9)["720p"][1].rate"#, "2000000"),
        ("no new duration, no new sample",
         #"SidelinePage.playback.sample({"720p": [{at: 7, duration: 10, bytes: 5000000, rate: 4000000}]}, [{name: "720p", durationRecorded: 10, bytesRecorded: 5000000}], 9)["720p"].length"#, "1"),
        ("at most 90 samples a variant",
         #"(() => { let s = {}; for (let i = 1; i <= 100; i++) s = SidelinePage.playback.sample(s, [{name: "v", durationRecorded: i * 2, bytesRecorded: i * 100, averageBitRate: 1}], i); return [s.v.length, s.v[0].duration]; })()"#, "[90,22]"),
        ("an angle's offset on the set's timeline, unknown until its origin is",
         #"[SidelinePage.playback.offset(1800000004000, 1800000000000), isNaN(SidelinePage.playback.offset(NaN, 1800000000000))]"#, "[4,true]"),
        // markers and clips
        ("a mark at the moment shown, less the lead", #"SidelinePage.markers.body("Goal", 5, new Date(Date.UTC(2027, 0, 15, 8, 0, 30)))"#, #"{"label":"Goal","time":"2027-01-15T08:00:25.000Z"}"#),
        ("a mark with nothing shown is now, with the lead for the server", #"[SidelinePage.markers.body("Goal", 5, null), SidelinePage.markers.body("Goal", 0, null)]"#,
         #"[{"label":"Goal","time":"now","lead":5},{"label":"Goal","time":"now"}]"#),
        ("a stream's clip in seconds with its variant", #"SidelinePage.markers.clipQuery(3.5, 6, null, NaN, "360p")"#, #""start=3.5&end=6&variant=360p""#),
        ("a set's clip as program date-times from the set's start", #"SidelinePage.markers.clipQuery(3.5, NaN, {name: "match"}, Date.UTC(2027, 0, 15, 8), "360p")"#,
         #""start=2027-01-15T08%3A00%3A03.500Z""#),
        // formats
        ("times, rates and sizes", #"[SidelinePage.format.seconds(3725), SidelinePage.format.seconds(65), SidelinePage.format.seconds(NaN), SidelinePage.format.rate(2500000), SidelinePage.format.rate(350000), SidelinePage.format.bytes(2.5e9)]"#,
         #"["1:02:05","1:05","–","2.50 Mb/s","350 kb/s","2.5 GB"]"#),
    ]

    @Test func everyRowGivesWhatThePageNeeds() async throws {
        let directory = try makeTemporaryDirectory("page-state")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Each row's expression is evaluated on its own, so one that throws is reported as such.
        let calls = Self.rows.map { row in
            "(() => { try { return JSON.stringify(\(row.expression)); } catch (e) { return \"threw: \" + e; } })()"
        }.joined(separator: ",\n")
        let page = """
        <!doctype html><html><head><meta charset="utf-8"></head><body><pre id="out"></pre>
        <script src="\(Self.script.absoluteString)"></script>
        <script>
        document.getElementById("out").textContent = JSON.stringify([\(calls)]);
        </script></body></html>
        """
        let json = try await HeadlessChromium.output(of: page, in: directory)
        let results = try JSONDecoder().decode([String].self, from: Data(json.utf8))
        #expect(results.count == Self.rows.count, "\(json)")
        for (row, result) in zip(Self.rows, results) {
            #expect(result == row.expected, "\(row.name)")
        }
    }
}
