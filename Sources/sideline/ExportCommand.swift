import ArgumentParser
import Foundation
import HLSPlaylist
import MediaPipeline
import OriginPolicy
import SidelineConfig
import SidelineCore
import StreamServices

/// `sideline export`: an MP4 of a range of a recording in the data directory, remuxed from its
/// segments (no re-encode), the same clip `GET /api/streams/{stream}/clip.mp4` sends. Works
/// with no server running: on a mirror's disk after the network is gone, say.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write an MP4 clip of a recorded stream (no re-encode).",
        discussion: """
        --start and --end are program date-times (2026-11-24T15:04:05Z) or seconds from the \
        start of the recording; either may be left out (from the start, to the newest entry). \
        The clip starts on the keyframe at or before --start (at most one segment earlier) and \
        says how far before. The file appears whole or not at all. An angle set's name cuts \
        every angle at the same program date-times (seconds count from its default angle).
        """
    )

    @Argument(help: "The stream's name, as in its URLs, or an angle set's: one MP4 per angle into the --output directory, or a ZIP when it ends in .zip.")
    var stream: String = "main"
    @Option(help: "From: a program date-time or seconds from the start of the recording.")
    var start: String?
    @Option(help: "To: a program date-time or seconds from the start of the recording.")
    var end: String?
    @Option(help: "The variant to copy (default: the best the stream recorded).")
    var variant: String?
    @Option(name: .shortAndLong, help: "The MP4 to write (default: a name with the stream, variant, start and length, in this directory).")
    var output: String?
    @Option(help: "Config file (YAML) whose data_dir holds the recording.")
    var config: String?
    @Option(name: .customLong("data-dir"), help: "Where streams are recorded (instead of the config's data_dir).")
    var dataDirectory: String?

    func run() async throws {
        try await reportingStartupErrors {
            let settings = try SidelineConfiguration.forCommand(config)
            let data = dataDirectory ?? settings.dataDirectory
            let window: TimeWindow
            switch TimeWindow.parse(start: start, end: end) {
            case let .success(parsed): window = parsed
            case let .failure(rejection): throw SidelineStartupError(message: "--" + rejection.message)
            }
            // An angle set's name: every angle, cut at the same moment.
            if let set = settings.angleSet(named: stream) {
                for line in try ClipExport.writeSet(set, of: settings, variant: variant, window: window, dataDirectory: data, to: output) { print(line) }
                return
            }
            let recording = try ClipExport.recording(of: stream, variant: variant, dataDirectory: data)
            let plan: ClipPlan
            switch ClipPlan.plan(stream: stream, variant: recording.variant, playlist: recording.playlist, window: window, file: recording.file) {
            case let .success(made): plan = made
            case let .failure(refusal): throw SidelineStartupError(message: "\(stream)/\(recording.variant): \(refusal.reason)")
            }
            try write(plan, to: output ?? plan.fileName)
        }
    }

    /// Remuxes into a temporary file beside the target, then renames it into place.
    private func write(_ plan: ClipPlan, to target: String) throws {
        let directory = (target as NSString).deletingLastPathComponent
        let temporary = (directory.isEmpty ? "." : directory) + "/.\((target as NSString).lastPathComponent).partial-\(getpid())"
        let bar = ProgressBar(label: (target as NSString).lastPathComponent)
        let started = ContinuousClock.now
        let outcome: ClipRemuxer.Outcome
        do {
            outcome = try ClipRemuxer.remux(.init(segments: plan.segments, start: plan.start, end: plan.end), to: temporary) { bar.show($0) }
        } catch {
            bar.finish()
            throw SidelineStartupError(message: "the clip could not be made: \(error)")
        }
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            bar.finish()
            throw SidelineStartupError(message: "cannot write \(target): \(reason)")
        }
        bar.finish()
        let seconds = (ContinuousClock.now - started).inSeconds
        let snapped = outcome.snappedBy > 0.0005 ? String(format: "; starts %.3f s before the asked start, on the keyframe there", outcome.snappedBy) : ""
        print(String(format: "%@: %.3f s of %@ from %d segments, %.1f MB in %.3f s (opening %.3f s, copying %.3f s)%@", target, outcome.duration, plan.variant,
                     plan.segments.count, Double(outcome.bytes) / 1e6, seconds, outcome.openingSeconds, outcome.copyingSeconds, snapped))
    }
}

/// A one-line progress bar on standard error, drawn only on a terminal.
final class ProgressBar {
    let label: String
    let drawn = isatty(STDERR_FILENO) == 1
    private var lastPercent = -1

    init(label: String) { self.label = label }

    func show(_ fraction: Double) {
        guard drawn else { return }
        let percent = Int((fraction * 100).rounded(.down))
        guard percent != lastPercent else { return }
        lastPercent = percent
        let width = 30
        let filled = Int(Double(width) * fraction)
        FileHandle.standardError.write(Data("\r\(label) [\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(percent)%".utf8))
    }

    func finish() {
        if drawn && lastPercent >= 0 { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
