import Foundation
import HLSPlaylist
import NIOCore
@testable import OriginRegistry
import SidelineTesting
import Testing

/// What one playlist version a part makes costs to render and compress at hour 3 (5,400
/// entries), from the prefix the version before kept (`ServedMediaPlaylist.KeptPrefix`,
/// `PrefixGzip`) and whole, the two alternating. A benchmark, not a test: it runs only with
/// SIDELINE_BENCH set (`scripts/bench/run part-render`) and prints its figures; it asserts
/// nothing about time.
@Suite struct PartVersionCostBenchmark {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SIDELINE_BENCH"] != nil))
    func aPartsVersionAtHourThree() {
        let live = TestPlaylists.live(count: 5400)
        let rounds = Int(ProcessInfo.processInfo.environment["ROUNDS"] ?? "") ?? 15
        var kept: [Double] = []
        var whole: [Double] = []
        var last: ServedMediaPlaylist?
        for round in 0..<rounds {
            let edge = PrefixGzipTests.edge(open: 1 + round % 9, next: 5400, listed: [5398, 5399])
            let start = ContinuousClock.now
            let fromKept = ServedMediaPlaylist(live, offer: .init(), tag: "k\(round)", edge: edge, kept: last?.prefix)
            let middle = ContinuousClock.now
            _ = ServedMediaPlaylist(live, offer: .init(), tag: "w\(round)", edge: edge, kept: nil)
            let end = ContinuousClock.now
            // The first round has no kept prefix yet: both sides render whole.
            if round > 0 {
                kept.append((middle - start) / .milliseconds(1))
                whole.append((end - middle) / .milliseconds(1))
            }
            last = fromKept
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        print("part-version: \(last?.full.plain.readableBytes ?? 0) bytes (gzip \(last?.full.gzip?.readableBytes ?? 0)); median of \(kept.count): "
            + "from the kept prefix \(String(format: "%.2f", median(kept))) ms, whole \(String(format: "%.2f", median(whole))) ms; load average \(load)")
    }
}
