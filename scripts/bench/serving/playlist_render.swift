// What rendering a live media playlist costs with and without markers (Docs/benchmarks.md,
// "Playlist rendering with markers"): a 3-hour EVENT playlist (5,400 entries of 2 s) as the
// registry renders each version. Compiled with HLSPlaylist's sources by scripts/bench/run playlist-render.
import Foundation

@main enum PlaylistRenderBench {
    static func main() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var live = LiveMediaPlaylist(MediaPlaylist(targetDuration: 2, segments: []))
        for i in 0..<5400 {
            live.append(MediaSegment(uri: String(format: "%06d.ts", i), duration: 2, programDateTime: start.addingTimeInterval(Double(2 * i))))
        }
        let control = ServerControl(canSkipUntil: 12, canSkipDateRanges: true, canBlockReload: true)
        let marker = Marker(id: "m-1", label: "Try", time: start.addingTimeInterval(100), created: start, listedBefore: 5000)
        func time(_ name: String, _ body: () -> Int) {
            var samples: [Double] = []
            var bytes = 0
            for _ in 0..<15 {
                let started = ContinuousClock.now
                bytes = body()
                let spent = ContinuousClock.now - started
                samples.append(Double(spent.components.seconds) * 1000 + Double(spent.components.attoseconds) / 1e15)
            }
            samples.sort()
            print(String(format: "%-52@ %8d bytes  median %6.2f ms (min %.2f, max %.2f), 15 runs", name as NSString, bytes, samples[7], samples[0], samples[14]))
        }
        time("no markers: the incrementally kept text") { live.text(control: control).utf8.count }
        time("one marker: placingLive + render, whole") { live.playlist.placingLive([marker]).render(control: control).utf8.count }
    }
}
