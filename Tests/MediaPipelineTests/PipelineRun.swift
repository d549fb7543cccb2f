import Foundation
import HLSPlaylist
import Logging
@testable import MediaPipeline
import SidelineCore
import Synchronization
import TestSupport

/// Runs a real pipeline and keeps everything it reported.
final class PipelineRun: Sendable {
    struct Outcome: Sendable {
        var segments: [String: [EncodedSegment]] = [:]
        /// Each variant's parts, in the order they came (with `partDuration`).
        var parts: [String: [EncodedPart]] = [:]
        /// `.progress` events per variant.
        var progress: [String: Int] = [:]
        var formats: [String: VariantFormat] = [:]
        var failures: [String] = []
        var endOfStream: Bool?
        /// Input losses and restorations, in order: "lost <first slate segment>", "restored <first live segment>".
        var outages: [String] = []
        /// The run hit its timeout and was stopped.
        var timedOut = false
        var statistics = PipelineStatistics()
        /// Each variant's effort reports, in order.
        var efforts: [String: [EffortReport]] = [:]
    }

    static func configuration(input: String, loop: Bool = false, variants: [Rung] = [.test720p]) -> PipelineConfiguration {
        PipelineConfiguration(
            input: input, loop: loop, realtime: false, inputTimeout: 3,
            frameRate: FrameRate(30), segmentDuration: 2, variants: variants,
            audio: AudioSpec(bitrate: 128_000, sampleRate: 48000, channels: 2)
        )
    }

    /// Encodes until the input ends, or until `stopAfterSegments` segments of the first variant
    /// exist, or (with `stopOnInputLoss`) until a live input is lost.
    /// A run still going after `timeout` seconds is stopped (and `timedOut` set), so a test
    /// whose stop condition never comes fails instead of hanging the suite.
    /// `startAtSegment`: the timeline slot the pipeline starts at (`LivePipeline.start(atSegment:)`).
    static func run(_ configuration: PipelineConfiguration, startAtSegment: Int = 0, stopAfterSegments: Int? = nil, stopOnInputLoss: Bool = false,
                    timeout: Double = 240, observe: (@Sendable (PipelineEvent, PipelineDrills) -> Void)? = nil,
                    stopWhen: (@Sendable (Outcome) -> Bool)? = nil, opened: ((LivePipeline) -> Void)? = nil) async throws -> Outcome {
        let outcome = Mutex(Outcome())
        let holder = Mutex<LivePipeline?>(nil)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        // Opening may block (a listening input waits for its sender): do it off the cooperative pool.
        let drills = PipelineDrills()
        let pipeline = try await open(configuration, logger: logger, drills: drills) { event in
            observe?(event, drills)
            var stop = false
            outcome.withLock { o in
                switch event {
                case let .segment(variant, segment):
                    o.segments[variant, default: []].append(segment)
                    if let limit = stopAfterSegments, variant == configuration.variants[0].name, o.segments[variant]!.count >= limit { stop = true }
                case let .variantFormat(variant, format): o.formats[variant] = format
                case let .variantFailed(variant, reason): o.failures.append("\(variant): \(reason)")
                case let .inputFailed(error): o.failures.append("input: \(error)")
                case let .finished(endOfStream): o.endOfStream = endOfStream
                case let .inputLost(reason, _, firstSlateSegment):
                    o.outages.append("lost \(firstSlateSegment): \(reason)")
                    if stopOnInputLoss { stop = true }
                case let .inputRestored(_, firstLiveSegment): o.outages.append("restored \(firstLiveSegment)")
                case let .effort(variant, report): o.efforts[variant, default: []].append(report)
                case let .part(variant, part): o.parts[variant, default: []].append(part)
                case let .progress(variant): o.progress[variant, default: 0] += 1
                case .segmentLoad: break
                }
            }
            if let stopWhen, outcome.withLock({ stopWhen($0) }) { stop = true }
            if stop { holder.withLock { $0?.stop() } }
        }
        holder.withLock { $0 = pipeline }
        opened?(pipeline)
        pipeline.start(atSegment: startAtSegment)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(timeout))
            outcome.withLock { $0.timedOut = true }
            holder.withLock { $0?.stop() }
        }
        await pipeline.finished()
        watchdog.cancel()
        var result = outcome.withLock { $0 }
        result.statistics = pipeline.statistics
        holder.withLock { $0 = nil }
        return result
    }

    static func open(_ configuration: PipelineConfiguration, logger: Logger, drills: PipelineDrills = PipelineDrills(),
                     onEvent: @escaping @Sendable (PipelineEvent) -> Void) async throws -> LivePipeline {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try LivePipeline(configuration: configuration, logger: logger, drills: drills, onEvent: onEvent) })
            }.start()
        }
    }

    /// Writes segments to files so ffprobe can judge them.
    static func write(_ segments: [EncodedSegment], to directory: String) throws -> [String] {
        try segments.enumerated().map { offset, segment in
            let path = "\(directory)/\(String(format: "%06d", offset)).ts"
            try Data(segment.bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
    }
}

extension Rung {
    static let test720p = Rung(name: "720p", width: 1280, height: 720, bitrate: 3_000_000, maxrate: 3_300_000, bufsize: 6_000_000, preset: "veryfast", profile: "high")
    static let test360p = Rung(name: "360p", width: 640, height: 360, bitrate: 800_000, maxrate: 880_000, bufsize: 1_600_000, preset: "veryfast", profile: "main")
}
