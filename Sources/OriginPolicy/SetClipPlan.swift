import Foundation
import HLSPlaylist

/// What a clip of an angle set asks for: one `ClipPlan` per angle, every angle cut at the same
/// moment. The asked window is placed on the default angle's recording first and turned into
/// program date-times; every angle is then cut by those dates. The angles share one timeline
/// (slot k carries the same program date-time in every angle), so the dates name the same
/// slots everywhere, even when an angle's recording started later and "seconds from the start"
/// would mean another moment in it. Pure: for `GET /api/sets/{set}/clip.zip` and
/// `sideline export --set` alike.
public struct SetClipPlan: Sendable, Equatable {
    public struct Angle: Sendable, Equatable {
        public var stream: String
        public var plan: ClipPlan
        /// The MP4's name in the ZIP or the export's directory: `<set>-<stream>.mp4`.
        public var fileName: String
    }

    public var set: String
    /// Default angle first.
    public var angles: [Angle]
    /// Seconds asked for (every angle's cut has this length, less what a gap takes).
    public var duration: Double
    /// The wall-clock time of the asked start, when the recordings have program date-times.
    public var startDate: Date?
    /// `<set>-<start>-<seconds>s`, without an extension.
    public var baseName: String

    /// One angle's recording: the variant chosen (`ClipPlan.variant`), its recorded playlist,
    /// and how an entry's segment file is found.
    public struct Recording {
        public var stream: String
        public var variant: String
        public var playlist: MediaPlaylist
        public var file: (MediaSegment) -> String?

        public init(stream: String, variant: String, playlist: MediaPlaylist, file: @escaping (MediaSegment) -> String?) {
            self.stream = stream
            self.variant = variant
            self.playlist = playlist
            self.file = file
        }
    }

    /// `angles`: default first. A refusal names the angle that gives it: one angle that cannot
    /// be cut refuses the whole set clip, so a download always holds every angle.
    public static func plan(set: String, angles: [Recording], window: TimeWindow) -> Result<SetClipPlan, Refusal> {
        guard let first = angles.first else { return .failure(Refusal(.nothingRecorded, "set '\(set)' has no angle")) }
        let span: WindowSpan
        switch PlaylistTimes(first.playlist).resolve(window) {
        case let .success(resolved): span = resolved
        case let .failure(rejection): return .failure(.malformed(rejection.message))
        }
        let length = span.end - span.start
        // Without program date-times the angles can only be cut by media seconds.
        let shared = span.startDate.map { TimeWindow(start: .date($0), end: .date($0.addingTimeInterval(length))) } ?? window
        var planned: [Angle] = []
        for angle in angles {
            switch ClipPlan.plan(stream: angle.stream, variant: angle.variant, playlist: angle.playlist, window: shared, file: angle.file) {
            case let .success(plan): planned.append(Angle(stream: angle.stream, plan: plan, fileName: "\(set)-\(angle.stream).mp4"))
            case let .failure(refusal): return .failure(Refusal(refusal.kind, "angle '\(angle.stream)': \(refusal.reason)", cache: refusal.cache))
            }
        }
        let stamp = span.startDate.map { ProgramDateTime.format($0).replacingOccurrences(of: ":", with: "-") } ?? "\(Int(span.start))s"
        return .success(SetClipPlan(set: set, angles: planned, duration: length, startDate: span.startDate,
                                    baseName: "\(set)-\(stamp)-\(Int(length.rounded()))s"))
    }
}
