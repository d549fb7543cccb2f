import ArgumentParser
import Foundation
import HLSPlaylist
import MediaPipeline
import OriginPolicy
import SegmentStore
import SidelineConfig
import SidelineCore
import StreamMirroring

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
        says how far before. The file appears whole or not at all.
        """
    )

    @Argument(help: "The stream's name, as in its URLs.")
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
            let layout = StreamLayout(dataDirectory: dataDirectory ?? settings.dataDirectory, stream: stream)
            let (variantName, playlist) = try recording(in: layout)
            let window: TimeWindow
            switch TimeWindow.parse(start: start, end: end) {
            case let .success(parsed): window = parsed
            case let .failure(rejection): throw SidelineStartupError(message: "--" + rejection.message)
            }
            let plan: ClipPlan
            switch ClipPlan.plan(stream: stream, variant: variantName, playlist: playlist, window: window, file: { entry in
                let path = layout.segmentPath(variantName, entry.uri)
                return FileManager.default.fileExists(atPath: path) ? path : nil
            }) {
            case let .success(made): plan = made
            case let .failure(refusal): throw SidelineStartupError(message: "\(stream)/\(variantName): \(refusal.reason)")
            }
            let target = output ?? plan.fileName
            try write(plan, to: target)
        }
    }

    /// The variant's recorded media playlist: the asked one, or the best that exists.
    private func recording(in layout: StreamLayout) throws -> (String, MediaPlaylist) {
        guard FileManager.default.fileExists(atPath: layout.streamDirectory) else {
            throw SidelineStartupError(message: "no recording of stream '\(stream)' in \(layout.dataDirectory); give the data directory with --data-dir or --config")
        }
        let recorded = ((try? FileManager.default.contentsOfDirectory(atPath: layout.streamDirectory)) ?? [])
            .filter { FileManager.default.fileExists(atPath: layout.mediaPlaylistPath($0)) }
        // Ladder order from the recording's master when it has one (best first), else by name.
        let master = (try? String(contentsOfFile: layout.masterPlaylistPath, encoding: .utf8)).flatMap { try? MultivariantPlaylist.parse($0) }
        let ladder = (master?.variants.compactMap { MirrorMaster.variantName(of: $0.uri, playlist: StreamLayout.mediaPlaylistName) } ?? []).filter(recorded.contains)
        let name: String
        switch ClipPlan.variant(asked: variant, variants: ladder + recorded.sorted().filter { !ladder.contains($0) }, recorded: Set(recorded)) {
        case let .variant(chosen): name = chosen
        case let .unknown(asked, has):
            throw SidelineStartupError(message: "stream '\(stream)' has no recorded variant '\(asked)'; it has \(has.sorted().joined(separator: ", "))")
        case .nothingRecorded:
            throw SidelineStartupError(message: "stream '\(stream)' has recorded nothing in \(layout.streamDirectory)")
        }
        let path = layout.mediaPlaylistPath(name)
        do {
            // The recording's view: late segments of a pushed backlog in place of their stand-ins.
            return (name, try MediaPlaylist.parse(try String(contentsOfFile: path, encoding: .utf8)).applyingReplacements())
        } catch {
            throw SidelineStartupError(message: "\(path) cannot be read: \(error)")
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
