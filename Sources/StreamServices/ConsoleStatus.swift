import Foundation
import MediaPipeline
import OriginPolicy
import OriginRegistry
import OriginState
import ServiceLifecycle
import SidelineCore
import Synchronization

/// `serve`'s status line (`StatusLinePrinter`): media time encoded, segments, realtime speed,
/// output bit rate and the URL to open (`ServeStatusLine`). With several streams, one part per stream.
public final class ConsoleStatus: Sendable {
    private let streams: [(name: String, statistics: @Sendable () -> PipelineStatistics)]
    private let registry: StreamRegistry
    private let url = Mutex<String?>(nil)
    private let started = ContinuousClock.now

    public init(streams: [(name: String, statistics: @Sendable () -> PipelineStatistics)], registry: StreamRegistry) {
        self.streams = streams
        self.registry = registry
    }

    public func announce(stream: String, url: String, note: String? = nil) {
        // The line shows one URL; with several streams the announcements carry them all.
        if streams.count == 1 { self.url.withLock { $0 = url } }
        StatusLinePrinter.write("Sideline is serving stream '\(stream)'. Open: \(url)\n" + (note.map { "  \($0)\n" } ?? ""))
    }

    private var printer: StatusLinePrinter { StatusLinePrinter { [self] in line() } }

    public func run() async { await printer.run() }

    public func finish() { printer.finish() }

    func line() -> String {
        let wall = started.duration(to: .now).inSeconds
        var text = streams.map { stream in
            let entry = registry.stream(named: stream.name)
            let effort = (entry?.variantOrder ?? []).compactMap { name in
                entry?.variants[name]?.status.effortName.map { (variant: name, name: $0) }
            }
            let part = ServeStatusLine.part(stream.statistics(), phase: entry?.phase.rawValue ?? "?", wall: wall, effort: effort)
            return streams.count == 1 ? part : "\(stream.name): \(part)"
        }.joined(separator: " | ")
        if let url = url.withLock({ $0 }) { text += " \(url)" }
        return text
    }
}

/// Keeps the console status line up to date until shutdown.
public struct ConsoleService: Service {
    let console: ConsoleStatus

    public init(console: ConsoleStatus) { self.console = console }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await console.run() }
    }
}
