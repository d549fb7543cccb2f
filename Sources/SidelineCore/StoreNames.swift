/// Every name the server gives a file or folder of its own in the data directory, and the one
/// rule a name from outside must keep before it becomes a folder or a URL segment: a stream,
/// set or variant name (the config's, a pushed master's declared ladder, a mirrored set's
/// angles). In one place, so the rule can refuse every name the server keeps.
///
/// Why: a stream's directory holds its variants' folders beside files of the server's own
/// (`master.m3u8`, `ingest/`, `timeline.json`...). A pushed master that declared a rung named
/// `master.m3u8` made a folder where the master is written, and `sideline serve` would not
/// start again until an operator deleted it by hand (issue 33).
///
///     <data dir>/<stream>/master.m3u8, timeline.json, metadata.json, markers.json, removed
///     <data dir>/<stream>/ingest/{session.json, ladder.json, <variant>/}
///     <data dir>/<stream>/unplaced/<variant>/
///     <data dir>/<stream>/set-master.m3u8, upstream-responses.jsonl   (a mirror's)
///     <data dir>/<set>/set-timeline.json
///     <data dir>/push-queue/<stream>/, .clips/, <stream>.previous-<time>/
public enum StoreNames {
    // In a stream's directory, beside its variants' folders.
    public static let masterPlaylist = "master.m3u8"
    public static let timeline = "timeline.json"
    public static let ingest = "ingest"
    public static let unplaced = "unplaced"
    public static let metadata = "metadata.json"
    public static let markers = "markers.json"
    /// The tombstone of a stream an operator removed.
    public static let tombstone = "removed"
    public static let setTimeline = "set-timeline.json"
    /// A mirror of a set keeps the upstream's set master here.
    public static let mirroredSetMaster = "set-master.m3u8"
    /// A mirror's log of the upstream's answers (`--record-header`).
    public static let upstreamResponses = "upstream-responses.jsonl"

    // In a stream's `ingest/`, beside the pushed variants' folders.
    public static let ingestSession = "session.json"
    public static let pushedLadder = "ladder.json"

    // In the data directory, beside the streams' and sets' folders.
    /// `sideline push`'s queue when it shares the data directory.
    public static let pushQueue = "push-queue"
    /// In push's queue, beside the variants' folders: its timeline and what was acknowledged.
    public static let pushQueueState = "state.json"
    /// A clip's scratch files.
    public static let clipScratch = ".clips"
    /// An earlier recording moved aside: `<stream>.previous-<time>`.
    public static let previousRecording = ".previous-"

    /// Every name above that a stream, set or variant name could equal, lower-cased: compared
    /// without case, so a disk that folds case cannot make `Ingest` the same folder as `ingest`.
    public static let reserved: Set<String> = Set([
        masterPlaylist, timeline, ingest, unplaced, metadata, markers, tombstone, setTimeline, mirroredSetMaster, upstreamResponses,
        ingestSession, pushedLadder, pushQueue, pushQueueState, clipScratch,
    ].map { $0.lowercased() })

    /// Whether `name` may name a stream, set or variant: it stands in a URL path segment and a
    /// directory name as it is (letters, digits, '-', '_' and '.'; at most 64; not starting
    /// with '.' or '-', nor ending with '.', which FAT and exFAT drop), and it is none of the
    /// names the server keeps beside it. Two names that differ only in case are one folder on a
    /// disk that folds case: callers compare `key(of:)` for uniqueness.
    public static func isUsable(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && !name.hasPrefix(".") && !name.hasPrefix("-") && !name.hasSuffix(".")
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == ".") }
            && !reserved.contains(name.lowercased()) && !name.lowercased().contains(previousRecording)
    }

    /// What two names are compared by for uniqueness: one folder on a disk that folds case.
    public static func key(of name: String) -> String { name.lowercased() }

    /// The rule of `isUsable` in words, for the messages that refuse a name.
    public static let rule = "letters, digits, '-', '_' or '.' (at most 64, not starting with '.' or '-', not ending with '.'), and none of the names the server keeps beside it (\(reserved.sorted().joined(separator: ", ")), or one containing '\(previousRecording)')"
}
