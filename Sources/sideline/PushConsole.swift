import Foundation
import MediaPipeline
import PushServices
import SidelineCore

/// `sideline push`'s status line on standard error, like `serve`'s: upload speed, the bit rate
/// chosen and the rungs sent, the queue, the oldest unsent segment, capture-to-listed
/// latency. Rewritten in place on a terminal; one line every ten seconds otherwise.
final class PushConsole: Sendable {
    private let session: PushSession
    private let statistics: @Sendable () -> PipelineStatistics
    private let isTerminal = isatty(STDERR_FILENO) == 1

    init(session: PushSession, statistics: @escaping @Sendable () -> PipelineStatistics) {
        self.session = session
        self.statistics = statistics
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

    func finish() { write((isTerminal ? "\r" : "") + line() + "\n") }

    func line() -> String {
        let status = session.status
        let stats = statistics()
        var text = "media=\(Self.clock(stats.mediaTime))"
        text += " upload=" + (status.uploadBitRate.map { Self.rate($0) } ?? "-")
        text += " video=\(Self.rate(status.plan.videoBitRate)) (" + status.plan.sent.map { "\($0.name) \(Self.rate($0.bitRate))" }.joined(separator: ", ") + ")"
        if !status.plan.dropped.isEmpty { text += " dropped=\(status.plan.dropped.joined(separator: ","))" }
        text += " queue=\(status.queued)"
        if let oldest = status.oldestUnsent { text += " oldest-unsent=\(String(format: "%.1f", oldest))s" }
        text += " listed=\(status.acknowledged)"
        if let latency = status.latency { text += " capture-to-listed=\(String(format: "%.2f", latency))s" }
        if let failure = status.lastFailure { text += " failing: \(failure.prefix(80))" }
        return text
    }

    private static func rate(_ bitsPerSecond: Int) -> String {
        bitsPerSecond >= 1_000_000 ? String(format: "%.2fMbit/s", Double(bitsPerSecond) / 1e6) : String(format: "%.0fkbit/s", Double(bitsPerSecond) / 1e3)
    }

    private static func clock(_ seconds: Double) -> String {
        let total = Int(seconds)
        return String(format: "%02d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
