import Foundation
import HLSOrigin
import MediaPipeline
import Synchronization

/// The status line on standard error, like ffmpeg's: media time encoded, segments, realtime
/// speed, output bit rate and the URL to open. Rewritten in place on a terminal; on a pipe or
/// a log file, one line every ten seconds.
final class ConsoleStatus: Sendable {
    private let pipeline: LivePipeline
    private let registry: StreamRegistry
    private let stream: String
    private let url = Mutex<String?>(nil)
    private let started = ContinuousClock.now
    private let isTerminal = isatty(STDERR_FILENO) == 1

    init(pipeline: LivePipeline, registry: StreamRegistry, stream: String) {
        self.pipeline = pipeline
        self.registry = registry
        self.stream = stream
    }

    func announce(url: String) {
        self.url.withLock { $0 = url }
        write("Sideline is serving stream '\(stream)'. Open: \(url)\n")
    }

    func run() async {
        var tick = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            tick += 1
            if isTerminal {
                write("\r" + line() + "\u{1B}[K")
            } else if tick % 10 == 0 {
                write(line() + "\n")
            }
        }
    }

    func finish() {
        write((isTerminal ? "\r" : "") + line() + "\n")
    }

    func line() -> String {
        let stats = pipeline.statistics
        let elapsed = started.duration(to: .now)
        let wall = elapsed.inSeconds
        let speed = wall > 0 ? stats.mediaTime / wall : 0
        let kbps = stats.mediaTime > 0 ? Double(stats.bytesWritten) * 8 / stats.mediaTime / 1000 : 0
        let phase = registry.stream(named: stream)?.phase.rawValue ?? "?"
        var text = "media=\(Self.clock(stats.mediaTime)) segments=\(stats.segments) speed=\(String(format: "%.2f", speed))x"
            + " bitrate=\(String(format: "%.1f", kbps))kbit/s state=\(phase)"
        if stats.corruptPackets > 0 { text += " corrupt=\(stats.corruptPackets)" }
        if let url = url.withLock({ $0 }) { text += " \(url)" }
        return text
    }

    private static func clock(_ seconds: Double) -> String {
        let total = Int(seconds)
        let hundredths = Int((seconds - Double(total)) * 100)
        return String(format: "%02d:%02d:%02d.%02d", total / 3600, total / 60 % 60, total % 60, hundredths)
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
