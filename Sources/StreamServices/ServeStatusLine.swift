import Foundation
import MediaPipeline
import SidelineCore

/// One stream's part of `serve`'s status line, like ffmpeg's: media time encoded, segments,
/// realtime speed, output bit rate, the stream's state, and trouble when there is any.
public enum ServeStatusLine {
    /// `effort`: the variants running below their configured effort, with the step's name.
    public static func part(_ stats: PipelineStatistics, phase: String, wall: Double, effort: [(variant: String, name: String)] = []) -> String {
        let speed = wall > 0 ? stats.mediaTime / wall : 0
        let kbps = stats.mediaTime > 0 ? Double(stats.bytesWritten) * 8 / stats.mediaTime / 1000 : 0
        var text = "media=\(ClockText.of(stats.mediaTime, hundredths: true)) segments=\(stats.segments) speed=\(String(format: "%.2f", speed))x"
            + " bitrate=\(String(format: "%.1f", kbps))kbit/s state=\(phase)"
        if stats.corruptPackets > 0 { text += " corrupt=\(stats.corruptPackets)" }
        if !effort.isEmpty { text += " effort=" + effort.map { "\($0.variant):\($0.name)" }.joined(separator: ",") }
        if stats.framesDroppedBySlowVariants > 0 { text += " slow-variant-drops=\(stats.framesDroppedBySlowVariants)" }
        return text
    }
}
