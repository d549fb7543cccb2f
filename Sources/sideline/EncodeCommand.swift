import ArgumentParser
import Foundation
import Logging
import MediaPipeline
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineConfig
import SidelineCore
import StreamServices

/// Records an input to the data directory as fast as the machine allows, then exits: the same
/// pipeline, recorder and playlists as `serve`, without HTTP or pacing. For preparing replays
/// offline, and for benchmarks (see Docs/benchmarks.md).
struct EncodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Encode an input into HLS segments and playlists as fast as possible, then exit.",
        discussion: "Prints one summary line: media seconds, wall seconds, realtime factor, CPU seconds and CPU seconds per media second."
    )

    @OptionGroup var options: StreamOptions
    @Flag(help: "Pace a file input at real time, as `serve` does (to measure publish latency as a live stream sees it).")
    var realtime = false
    @Option(help: "Stop after this many seconds of media (for looped or endless inputs).")
    var mediaLimit: Double?
    @Flag(help: "Measure what each rung costs at each effort step on this machine, print the table and whether the configured streams fit, and keep it for serve.")
    var calibrate = false

    func run() async throws {
        options.bootstrapLogging()
        try await reportingStartupErrors {
            if calibrate { return try await calibrateMachine() }
            var settings = try options.resolve()
            guard settings.streams.count == 1 else {
                throw SidelineStartupError(message: "encode records one stream, and the config defines \(settings.streams.count) (\(settings.streams.map(\.name).joined(separator: ", "))). Give it a config with one stream, or use serve.")
            }
            settings.streams[0].loop = options.loop ?? false
            // A recording made ahead of time has no live edge: whole segments, no parts.
            settings.partDuration = 0
            let plan = ServePlan(configuration: settings, stream: settings.streams[0], realtime: realtime, effort: EncodingCapacity.encodeEffort(settings.streams[0]))
            let started = ContinuousClock.now
            let cpuBefore = CPUTime.process()
            let logger = Logger(label: "sideline")
            let opened = try plan.openPipeline(logger: logger)
            let pipeline = opened.pipeline
            // No stand-ins: encode runs faster than real time, so no slot is ever late.
            let (publisher, firstSlot) = try plan.makePublisher(for: opened, registry: StreamRegistry(), withStandIns: false, logger: logger)
            pipeline.start(atSegment: firstSlot)
            let limiter = Task {
                guard let limit = mediaLimit else { return }
                while !Task.isCancelled, pipeline.statistics.mediaTime < limit {
                    try? await Task.sleep(for: .milliseconds(50))
                }
                pipeline.stop()
            }
            await pipeline.finished()
            limiter.cancel()
            let wall = started.duration(to: .now)
            let wallSeconds = wall.inSeconds
            let cpu = CPUTime.process() - cpuBefore
            let stats = pipeline.statistics
            let phase = publisher.registry.stream(named: plan.stream.name)?.phase
            print(String(format: "encoded media=%.2fs wall=%.2fs realtime=%.2fx cpu=%.2fs cpu_per_media_s=%.3f segments=%d variants=%d",
                         stats.mediaTime, wallSeconds, stats.mediaTime / max(wallSeconds, 1e-9), cpu, cpu / max(stats.mediaTime, 1e-9),
                         stats.segments, plan.stream.video.ladder.count))
            let latency = publisher.publishLatency
            if let p50 = latency.percentile(50), let p99 = latency.percentile(99), let max = latency.percentile(100) {
                print(String(format: "publish_latency_ms p50=%.1f p99=%.1f max=%.1f samples=%d", p50 * 1000, p99 * 1000, max * 1000, latency.count))
            }
            if phase != .ended { throw ExitCode(1) }
        }
    }
}

extension EncodeCommand {
    /// `--calibrate`: the whole table for the config's streams, measured again, kept, printed.
    private func calibrateMachine() async throws {
        let settings = try options.resolve()
        print(try await EncodingCapacity.calibrate(settings.streams, segmentDuration: settings.segmentDuration, input: options.input, logger: Logger(label: "sideline")))
    }
}
