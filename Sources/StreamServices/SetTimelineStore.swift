import Foundation
import HLSPlaylist
import Logging
import SegmentStore
import SidelineConfig
import SidelineCore
import StreamPublishing
import Synchronization

/// Where each angle set's timeline (`SetTimeline`) is kept, and the one the process uses: the
/// first angle of a set to start (in this process) reads it, or makes it, and every later angle
/// takes the same one. `<data_dir>/<set>/set-timeline.json`: a set's name is unique among
/// streams, so that directory is its own (it holds no playlist, so retention never counts it
/// as a recording).
public enum SetTimelineStore {
    /// Timelines by file path (a test may run servers on several data directories).
    private static let loaded = Mutex<[String: SetTimeline]>([:])

    public static func path(dataDirectory: String, set: String) -> String { "\(dataDirectory)/\(set)/\(StoreNames.setTimeline)" }

    /// The timeline of `set`. Read back when one is kept and some angle still has a recording
    /// on it; else continued from the recording an angle has (a stream that joins a new set
    /// keeps its numbering); else a new one starting `now`. Written atomically when made.
    public static func timeline(of set: AngleSetSettings, configuration: SidelineConfiguration, now: Date = Date(), logger: Logger) -> SetTimeline {
        let path = path(dataDirectory: configuration.dataDirectory, set: set.name)
        return loaded.withLock { loaded in
            if let known = loaded[path] { return known }
            let layouts = set.streams.map { StreamLayout(dataDirectory: configuration.dataDirectory, stream: $0) }
            let recorded = layouts.compactMap { lastDatedEntry(of: $0, configuration: configuration) }
            let kept = FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(SetTimeline.self, from: $0) }
            let (timeline, isNew) = SetTimeline.choose(kept: kept, recorded: recorded, segmentDuration: configuration.segmentDuration, now: now)
            if isNew {
                do {
                    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    try AtomicFile.write(Array(try JSONEncoder().encode(timeline)), to: path)
                } catch {
                    // The set still runs on it; a restart makes a new one from the angles' recordings.
                    logger.error("cannot keep the angle set's timeline; a restart continues it from the recordings", metadata: ["set": "\(set.name)", "path": "\(path)", "error": "\(error)"])
                }
                logger.notice("angle set timeline", metadata: ["set": "\(set.name)", "epoch": "\(ProgramDateTime.format(timeline.epoch))"])
            }
            loaded[path] = timeline
            return timeline
        }
    }

    /// The slot and date of the last dated entry a stream recorded (its longest variant's).
    private static func lastDatedEntry(of layout: StreamLayout, configuration: SidelineConfiguration) -> (slot: Int, date: Date)? {
        guard StreamTombstone.read(layout) == nil, let stream = configuration.streams.first(where: { $0.name == layout.stream }) else { return nil }
        let reader = RecordingReader(layout: layout)
        let playlists = stream.video.ladder.compactMap { rung in (try? reader.mediaPlaylist(rung.name)) ?? nil }
        guard let longest = playlists.max(by: { $0.segments.count < $1.segments.count }) else { return nil }
        let timeline = reader.timeline().flatMap { try? JSONDecoder().decode(StreamTimeline.self, from: Data($0)) } ?? StreamTimeline()
        return SetTimeline.lastDated(longest.segments, timeline: timeline)
    }
}
