import Foundation
import MediaPipeline
import PushServices
import StreamPushing
import Testing

/// What `sideline push` prints: the status line and the summary the benchmark reads.
@Suite struct PushStatusLineTests {
    @Test func theLineSaysWhatTheUplinkAndTheQueueAreDoing() {
        let plan = PushLadder.Plan(sent: [.init(name: "720p", bitRate: 1_200_000), .init(name: "360p", bitRate: 320_000)], dropped: ["180p"])
        let status = PushSession.Status(uploadBitRate: 2_410_000, plan: plan, queued: 3, oldestUnsent: 4.06, latency: 0.523, acknowledged: 42, lastFailure: nil)
        #expect(PushStatusLine.render(status, mediaSeconds: 3_725.4)
            == "media=01:02:05 upload=2.41Mbit/s video=1.52Mbit/s (720p 1.20Mbit/s, 360p 320kbit/s) dropped=180p queue=3 oldest-unsent=4.1s listed=42 capture-to-listed=0.52s")
        let failing = PushSession.Status(uploadBitRate: nil, plan: plan, queued: 0, oldestUnsent: nil, latency: nil, acknowledged: 0, lastFailure: "segment 720p/00000001.ts: no answer")
        #expect(PushStatusLine.render(failing, mediaSeconds: 0).hasSuffix("upload=- video=1.52Mbit/s (720p 1.20Mbit/s, 360p 320kbit/s) dropped=180p queue=0 listed=0 failing: segment 720p/00000001.ts: no answer"))
    }

    @Test func theSummaryIsWhatTheBenchmarkReads() {
        let latency = LatencyRecorder()
        for milliseconds in [400, 410, 420, 900] { latency.record(Double(milliseconds) / 1000) }
        let uploads = LatencyRecorder()
        #expect(PushStatusLine.summary(latency: latency, uploads: uploads) == ["capture_to_listed_ms p50=410.0 p99=900.0 max=900.0 samples=4"])
        let best = LatencyRecorder()
        best.record(0.4)
        #expect(PushStatusLine.summary(latency: latency, bestRung: best, uploads: uploads).last == "capture_to_listed_best_rung_ms p50=400.0 p99=400.0 max=400.0 samples=1")
    }
}
