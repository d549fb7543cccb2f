import EncoderEffort
import Foundation
import HLSPlaylist
import Logging
import MediaPipeline
import SegmentStore
import SidelineConfig
import SidelineCore

/// What the configured streams cost on this machine, measured once and kept: `serve` reads the
/// kept table at start, measures the rungs it does not hold yet (a few seconds, once per
/// machine and ladder), says in one message when the streams do not fit, and starts every
/// encoder at the effort that fits. `sideline encode --calibrate` measures the whole table.
public enum EncodingCapacity {
    /// Seconds of media each measurement encodes: long enough for a GOP and x264's warm-up.
    public static let calibrationSeconds = 2.0

    /// The kept table: `$SIDELINE_COST_TABLE`, else `$XDG_CACHE_HOME/sideline/encoding-costs.json`
    /// (`~/.cache/...`). Per machine, not per data directory: the cost is the CPU's.
    public static var tablePath: String { tablePath(environment: ProcessInfo.processInfo.environment) }

    /// `tablePath` for `environment`: the rule, apart from the process it runs in.
    public static func tablePath(environment: [String: String], temporaryDirectory: String = NSTemporaryDirectory()) -> String {
        if let path = environment["SIDELINE_COST_TABLE"], !path.isEmpty { return path }
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"].map { $0 + "/.cache" } ?? temporaryDirectory)
        return cache + "/sideline/encoding-costs.json"
    }

    /// The kept table when it was measured on this machine; an empty one otherwise.
    public static func keptTable(machine: String = EncoderCalibration.machine, at path: String = tablePath) -> CostTable {
        guard let data = FileManager.default.contents(atPath: path),
              let table = try? JSONDecoder().decode(CostTable.self, from: data), table.machine == machine else {
            return CostTable(machine: machine)
        }
        return table
    }

    /// Writes the table whole (`AtomicFile`), so a reader never sees half of it. A table that
    /// cannot be kept is measured again next time: logged, not fatal.
    public static func keep(_ table: CostTable, at path: String = tablePath, logger: Logger) {
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try AtomicFile.write(Array(try encoder.encode(table)), to: path)
        } catch {
            logger.warning("the measured encoding costs could not be kept; they will be measured again at the next start",
                           metadata: ["file": "\(path)", "error": "\(error)"])
        }
    }

    /// What to calibrate with: the sample (real footage, the same on every machine) when it
    /// is there, else the first file input, else the built-in test pattern. `exists`: whether a
    /// file is there (the disk, unless a test says otherwise).
    public static func calibrationInput(for streams: [StreamSettings], sample: String = SidelineConfiguration.defaultStream.input,
                                        exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> String {
        if exists(sample) { return sample }
        for stream in streams where !stream.isPushed {
            if case .file = InputKind(classifying: stream.input), exists(stream.input) { return stream.input }
        }
        return InputKind.testPatternName
    }

    /// Measures what `table` lacks for `streams`' rungs, on a thread of its own (the encodes
    /// block), and returns the completed table.
    public static func complete(_ table: CostTable, for streams: [StreamSettings], segmentDuration: Double, input: String) async throws -> CostTable {
        let missing = table.missing(streams.flatMap(\.video.ladder))
        guard !missing.isEmpty else { return table }
        let frameRate = FrameRate(streams.first?.video.frameRate ?? 30)
        let measured = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CostTable, any Error>) in
            let thread = Thread {
                continuation.resume(with: Result { () throws(PipelineError) -> CostTable in
                    try EncoderCalibration.measure(input: input, rungs: missing, frameRate: frameRate, segmentDuration: segmentDuration,
                                                   seconds: calibrationSeconds, machine: table.machine)
                })
            }
            thread.name = "sideline.calibration"
            thread.start()
        }
        var completed = table
        completed.merge(measured)
        return completed
    }

    /// The plan for `streams` on this machine, from the kept table completed by measurement.
    /// Logs the one message an operator needs when the streams do not fit.
    public static func plan(for streams: [StreamSettings], segmentDuration: Double, logger: Logger) async -> (CapacityPlan, CostTable)? {
        let encoded = streams.filter { !$0.isPushed }
        guard !encoded.isEmpty else { return nil }
        let kept = keptTable()
        let table: CostTable
        do {
            table = try await complete(kept, for: encoded, segmentDuration: segmentDuration, input: calibrationInput(for: encoded))
        } catch {
            // Not knowing the cost is no reason not to serve: encoders start as configured and
            // the effort rule finds the right step from what they measure.
            logger.warning("could not measure what encoding costs on this machine; encoders start at their configured effort",
                           metadata: ["error": "\(error)"])
            return nil
        }
        if table != kept { keep(table, logger: logger) }
        let plan = CapacityPlan(streams: encoded.map { .init(name: $0.name, ladder: $0.video.ladder) }, costs: table,
                                cores: ProcessInfo.processInfo.activeProcessorCount)
        if let warning = plan.warning { logger.warning("\(warning)") }
        return (plan, table)
    }

    /// One `ServePlan` per configured stream, each with the effort its encoders start at: what
    /// the streams cost on this machine (measured once, kept) decides it. Not measured for a
    /// file encoded as fast as possible (not `realtime`): there effort never steps.
    public static func servePlans(_ settings: SidelineConfiguration, realtime: Bool, logger: Logger) async -> [ServePlan] {
        let capacity = realtime ? await plan(for: settings.streams, segmentDuration: settings.segmentDuration, logger: logger) : nil
        return settings.streams.map { stream in
            // A pushed stream's rungs cost this box nothing to encode: never shed here.
            let shed = stream.isPushed ? [] : capacity.map { $0.0.shedRungs(of: .init(name: stream.name, ladder: stream.video.ladder)) } ?? []
            return ServePlan(configuration: settings, stream: stream, realtime: realtime, effort: effort(for: stream, plan: capacity?.0, table: capacity?.1), shed: shed)
        }
    }

    /// `sideline encode`'s effort settings: x264 threads shared out among the stream's rungs as
    /// `serve` shares them, and (with --realtime) the effort rule from the configured step.
    public static func encodeEffort(_ stream: StreamSettings) -> EffortSettings {
        EffortSettings(threadsPerRung: CapacityPlan.threadsPerRung(rungs: stream.video.ladder.count, cores: ProcessInfo.processInfo.activeProcessorCount))
    }

    /// The pipeline's effort settings for one stream under `plan`.
    public static func effort(for stream: StreamSettings, plan: CapacityPlan?, table: CostTable?) -> EffortSettings {
        guard let plan, let table else { return EffortSettings() }
        let costs = Dictionary(stream.video.ladder.map { ($0.name, table.relativeCosts($0)) }) { first, _ in first }
        return EffortSettings(startingStep: plan.startingStep, threadsPerRung: plan.threadsPerRung, relativeCosts: costs)
    }
}

extension EncodingCapacity {
    /// Measures the whole table for `streams` again (with `input`, or the usual calibration
    /// input), keeps it, and returns the report.
    public static func calibrate(_ streams: [StreamSettings], segmentDuration: Double, input: String?, logger: Logger) async throws -> String {
        let input = input ?? calibrationInput(for: streams)
        let table = try await complete(CostTable(machine: EncoderCalibration.machine), for: streams, segmentDuration: segmentDuration, input: input)
        keep(table, logger: logger)
        return report(table, for: streams, input: input)
    }

    /// `sideline encode --calibrate`'s table: each rung at each step, against its configured
    /// step, then what the streams need against what the machine (`cores`) has. `keptIn`: where
    /// the table was kept.
    public static func report(_ table: CostTable, for streams: [StreamSettings], input: String,
                              cores: Int = ProcessInfo.processInfo.activeProcessorCount, keptIn: String = tablePath) -> String {
        var lines = ["Encoding costs on \(table.machine), measured with \(input) (\(DecimalFormat.compact(calibrationSeconds)) s of media, one x264 thread per rung)",
                     "Kept in \(keptIn); serve reads it at start.",
                     "",
                     pad("rung", 8) + pad("size", 11) + pad("step", 13) + pad("cpu_s/media_s", 15) + "vs configured"]
        var seen = Set<String>()
        for rung in streams.flatMap(\.video.ladder) {
            let steps = EffortSteps.steps(for: rung)
            guard seen.insert(CostTable.key(rung, steps[0])).inserted else { continue }
            let anchor = table.cost(rung, steps[0]) ?? 0
            for step in steps {
                let cost = table.cost(rung, step) ?? 0
                lines.append(pad(rung.name, 8) + pad("\(rung.width)x\(rung.height)", 11) + pad(step.name, 13) + pad(String(format: "%.3f", cost), 15)
                    + String(format: "%.2fx", anchor > 0 ? cost / anchor : 0))
            }
        }
        lines.append(pad("decode", 32) + String(format: "%.3f", table.decode) + " (per stream, the calibration input)")
        let plan = CapacityPlan(streams: streams.filter { !$0.isPushed }.map { .init(name: $0.name, ladder: $0.video.ladder) }, costs: table, cores: cores)
        lines.append("")
        lines.append(plan.warning ?? "\(plan.streams.count) stream\(plan.streams.count == 1 ? " needs" : "s need") about "
            + String(format: "%.1f", plan.needByStep.first ?? 0) + " cores at their configured effort; this machine has \(plan.cores)"
            + String(format: " (%.1f for encoding): they fit.", plan.available))
        return lines.joined(separator: "\n")
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
