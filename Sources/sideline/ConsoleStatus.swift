import Foundation
import HLSOrigin
import MediaPipeline
import ServiceLifecycle
import SidelineCore
import StreamServices
import Synchronization

/// The status line on standard error, like ffmpeg's: media time encoded, segments, realtime
/// speed, output bit rate and the URL to open. Rewritten in place on a terminal; on a pipe or
/// a log file, one line every ten seconds. With several streams, one part per stream.
final class ConsoleStatus: Sendable {
    private let streams: [(name: String, statistics: @Sendable () -> PipelineStatistics)]
    private let registry: StreamRegistry
    private let url = Mutex<String?>(nil)
    private let started = ContinuousClock.now
    private let isTerminal = isatty(STDERR_FILENO) == 1

    init(streams: [(name: String, statistics: @Sendable () -> PipelineStatistics)], registry: StreamRegistry) {
        self.streams = streams
        self.registry = registry
    }

    func announce(stream: String, url: String) {
        // The line shows one URL; with several streams the announcements carry them all.
        if streams.count == 1 { self.url.withLock { $0 = url } }
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
        let wall = started.duration(to: .now).inSeconds
        var text = streams.map { stream in
            let part = ServeStatusLine.part(stream.statistics(), phase: registry.stream(named: stream.name)?.phase.rawValue ?? "?", wall: wall)
            return streams.count == 1 ? part : "\(stream.name): \(part)"
        }.joined(separator: " | ")
        if let url = url.withLock({ $0 }) { text += " \(url)" }
        return text
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// Keeps the console status line up to date until shutdown.
struct ConsoleService: Service {
    let console: ConsoleStatus

    func run() async throws {
        await cancelWhenGracefulShutdown { await console.run() }
    }
}
