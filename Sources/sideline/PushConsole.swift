import Foundation
import MediaPipeline
import PushServices

/// Prints `sideline push`'s status line (`PushStatusLine`) on standard error: rewritten in place
/// on a terminal, one line every ten seconds otherwise.
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

    private func line() -> String { PushStatusLine.render(session.status, mediaSeconds: statistics().mediaTime) }

    private func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
