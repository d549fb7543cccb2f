import Foundation
import MediaPipeline
import SidelineCore
import StreamPushing

/// `sideline push`'s status line, like `serve`'s: media time, the upload speed last measured,
/// the video bit rate chosen and each rung's, dropped rungs, the queue and its oldest segment,
/// segments listed, the last capture-to-listed latency, and the last failure while uploads fail.
public enum PushStatusLine {
    public static func render(_ status: PushSession.Status, mediaSeconds: Double) -> String {
        var text = "media=\(ClockText.of(mediaSeconds))"
        text += " upload=" + (status.uploadBitRate.map(rate) ?? "-")
        text += " video=\(rate(status.plan.videoBitRate)) (" + status.plan.sent.map { "\($0.name) \(rate($0.bitRate))" }.joined(separator: ", ") + ")"
        if !status.plan.dropped.isEmpty { text += " dropped=\(status.plan.dropped.joined(separator: ","))" }
        text += " queue=\(status.queued)"
        if let oldest = status.oldestUnsent { text += " oldest-unsent=\(String(format: "%.1f", oldest))s" }
        text += " listed=\(status.acknowledged)"
        if let latency = status.latency { text += " capture-to-listed=\(String(format: "%.2f", latency))s" }
        if let failure = status.lastFailure { text += " failing: \(failure.prefix(80))" }
        return text
    }

    /// The lines printed at exit: capture-to-listed latency and segment upload times, in the
    /// form the benchmarks read (`scripts/bench/push/push_latency.py`).
    public static func summary(latency: LatencyRecorder, bestRung: LatencyRecorder = LatencyRecorder(), uploads: LatencyRecorder) -> [String] {
        var lines: [String] = []
        for (name, recorder) in [("capture_to_listed_ms", latency), ("capture_to_listed_best_rung_ms", bestRung)] {
            guard let p50 = recorder.percentile(50), let p99 = recorder.percentile(99), let max = recorder.percentile(100) else { continue }
            lines.append(String(format: "\(name) p50=%.1f p99=%.1f max=%.1f samples=%d", p50 * 1000, p99 * 1000, max * 1000, recorder.count))
        }
        if let p50 = uploads.percentile(50), let p99 = uploads.percentile(99) {
            lines.append(String(format: "segment_upload_ms p50=%.1f p99=%.1f samples=%d", p50 * 1000, p99 * 1000, uploads.count))
        }
        return lines
    }

    static func rate(_ bitsPerSecond: Int) -> String {
        bitsPerSecond >= 1_000_000 ? String(format: "%.2fMbit/s", Double(bitsPerSecond) / 1e6) : String(format: "%.0fkbit/s", Double(bitsPerSecond) / 1e3)
    }
}
