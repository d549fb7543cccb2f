import Foundation
import HLSPlaylist
import MediaPipeline
import OriginAPI
import OriginPolicy
import SegmentStore
import SidelineConfig
import SidelineCore

/// `sideline export`'s work on a data directory, with no server running: a stream's recording
/// read from disk, and a set's clip written as one MP4 per angle into a directory, or as the
/// ZIP `/api/sets/{set}/clip.zip` sends. Blocking file work and remuxing: the command's own.
public enum ClipExport {
    /// The recorded variant to cut (the asked one, or the best that exists: ladder order from
    /// the recording's master, else by name) and its media playlist, from disk.
    public static func recording(of stream: String, variant asked: String?, dataDirectory: String) throws(SidelineStartupError) -> SetClipPlan.Recording {
        let layout = StreamLayout(dataDirectory: dataDirectory, stream: stream)
        let reader = RecordingReader(layout: layout)
        guard reader.exists else {
            throw SidelineStartupError(message: "no recording of stream '\(stream)' in \(layout.dataDirectory); give the data directory with --data-dir or --config")
        }
        let recorded = reader.recordedVariants()
        let master = reader.master()
        let ladder = (master?.variants.compactMap { MultivariantPlaylist.variantName(ofURI: $0.uri, playlist: StreamLayout.mediaPlaylistName) } ?? []).filter(recorded.contains)
        let name: String
        switch ClipPlan.variant(asked: asked, variants: ladder + recorded.sorted().filter { !ladder.contains($0) }, recorded: Set(recorded)) {
        case let .variant(chosen): name = chosen
        case let .unknown(asked, has):
            throw SidelineStartupError(message: "stream '\(stream)' has no recorded variant '\(asked)'; it has \(has.sorted().joined(separator: ", "))")
        case .nothingRecorded:
            throw SidelineStartupError(message: "stream '\(stream)' has recorded nothing in \(layout.streamDirectory)")
        }
        let playlist: MediaPlaylist
        do {
            guard let read = try reader.mediaPlaylist(name) else { throw RecordingReader.Unreadable(path: layout.mediaPlaylistPath(name), reason: "it is gone") }
            // The recording's view: late segments of a pushed backlog in place of their stand-ins.
            playlist = read.applyingReplacements()
        } catch {
            throw SidelineStartupError(message: "\(error)")
        }
        return SetClipPlan.Recording(stream: stream, variant: name, playlist: playlist) { entry in
            let file = layout.segmentPath(name, entry.uri)
            return FileManager.default.fileExists(atPath: file) ? file : nil
        }
    }

    /// `set`'s clip from this box's recordings: the angles it encodes (`writeSet`), and a line
    /// naming those other boxes encode (`boxes`, issue 35), which are exported there.
    public static func writeSet(_ set: AngleSetSettings, of settings: SidelineConfiguration, variant: String?, window: TimeWindow, dataDirectory: String,
                                to output: String?) throws(SidelineStartupError) -> [String] {
        let (here, elsewhere) = settings.angles(of: set)
        var lines = try writeSet(set.name, angles: here, variant: variant, window: window, dataDirectory: dataDirectory, to: output)
        if !elsewhere.isEmpty {
            lines.append("not exported: \(elsewhere.joined(separator: ", ")), encoded by other boxes: export them there with the same --start and --end as program date-times, or fetch the whole set's clip.zip through the edge")
        }
        return lines
    }

    /// A set's clip: every angle cut at the same program date-times (`SetClipPlan`). `output`
    /// ending in `.zip`: the ZIP the server sends; otherwise a directory (default: the plan's
    /// name) that gets `<set>-<stream>.mp4` per angle. Each file appears whole or not at all.
    /// Returns one line per file written, for the command to print.
    public static func writeSet(_ set: String, angles: [String], variant: String?, window: TimeWindow, dataDirectory: String,
                                to output: String?) throws(SidelineStartupError) -> [String] {
        var recordings: [SetClipPlan.Recording] = []
        for angle in angles { recordings.append(try recording(of: angle, variant: variant, dataDirectory: dataDirectory)) }
        let plan: SetClipPlan
        switch SetClipPlan.plan(set: set, angles: recordings, window: window) {
        case let .success(made): plan = made
        case let .failure(refusal): throw SidelineStartupError(message: "set '\(set)': \(refusal.reason)")
        }
        let zip = output.map { $0.lowercased().hasSuffix(".zip") } ?? false
        let target = output ?? plan.baseName
        // The MP4s are made beside the target, under a name of their own, then moved or packed.
        let parent = (target as NSString).deletingLastPathComponent
        let scratch = (parent.isEmpty ? "." : parent) + "/.\((target as NSString).lastPathComponent).partial-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var lines: [String] = []
        do {
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            for angle in plan.angles {
                let outcome = try ClipRemuxer.remux(.init(segments: angle.plan.segments, start: angle.plan.start, end: angle.plan.end), to: "\(scratch)/\(angle.fileName)")
                lines.append(String(format: "%@: %.3f s of %@/%@ from %d segments, %.1f MB", angle.fileName, outcome.duration, angle.stream, angle.plan.variant,
                                    angle.plan.segments.count, Double(outcome.bytes) / 1e6))
            }
            if zip {
                let packed = scratch + "/" + (target as NSString).lastPathComponent
                let bytes = try ClipArchive.write(plan.angles.map { .init(name: $0.fileName, path: "\(scratch)/\($0.fileName)") }, to: packed)
                try move(packed, to: target)
                lines.append(String(format: "%@: %d MP4s, %.1f MB (stored)", target, plan.angles.count, Double(bytes) / 1e6))
            } else {
                try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
                for angle in plan.angles { try move("\(scratch)/\(angle.fileName)", to: "\(target)/\(angle.fileName)") }
                lines = lines.map { "\(target)/\($0)" }
            }
        } catch {
            throw SidelineStartupError(message: "set '\(set)': the clip could not be written to \(target): \(error)")
        }
        return lines
    }

    /// `rename(2)`, which replaces the target whole: never a half-written file under its name.
    private static func move(_ from: String, to target: String) throws {
        guard rename(from, target) == 0 else { throw SidelineStartupError(message: "cannot write \(target): \(String(cString: strerror(errno)))") }
    }
}
