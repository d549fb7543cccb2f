import HLSPlaylist
import OriginPolicy

extension StreamRegistry {
    /// What one `publish` brings in: a new version of one variant's playlists and what it lists
    /// that the registry did not hold, said by where it came from. Every file is on disk (and
    /// every playlist written) before the publication is made.
    public struct Publication: Sendable {
        public var source: Source
        public var stream: String
        public var variant: String
        /// The variant's media playlist as it now is.
        public var playlist: LiveMediaPlaylist
        /// Its I-frame playlist when this version changed it; nil keeps the one the registry
        /// has (a variant restored without one has none).
        public var iFrames: LiveMediaPlaylist?

        public init(_ source: Source, stream: String, variant: String, playlist: LiveMediaPlaylist, iFrames: LiveMediaPlaylist? = nil) {
            self.source = source
            self.stream = stream
            self.variant = variant
            self.playlist = playlist
            self.iFrames = iFrames
        }
    }

    /// What was published, and from where.
    public enum Source: Sendable {
        /// What an earlier run recorded (or a mirror stored), read back at a start: the variant
        /// is replaced whole, its status counted from these files, and nothing held is woken.
        case restored(segments: [String: SegmentFile], gaps: Set<String>)
        /// A segment of this server's encoder or of a pusher, through the stream's publisher:
        /// counted, the variant's last publication, and the stream live once it has one.
        case segment(String, file: SegmentFile)
        /// A late segment that takes its stand-in's place in the recording (`SegmentReplacement`):
        /// served for `/vod/`, clips and mirrors; not counted (its slot was), not a new entry.
        case replacement(String, file: SegmentFile)
        /// A mirror's batch: the files stored since its last version and the entries its
        /// upstream lists as EXT-X-GAP. One version for a whole catch-up, not one per segment.
        case mirrored(segments: [String: SegmentFile], gaps: Set<String>)
        /// An entry listed as EXT-X-GAP with no file: the variant keeps pace with its siblings
        /// while its encoder, or the disk, fails.
        case gap(String)
        /// New playlists that list nothing new (EXT-X-ENDLIST; a mirror's upstream reshaped).
        case playlists
    }
}

extension StreamRegistry.Stream {
    /// Takes `publication` in, under the registry's lock: `playlist` and `iFrames` are its
    /// version as rendered, `now` the registry's clock. Changes the variant in place, so its
    /// segment index is not copied.
    mutating func take(_ publication: StreamRegistry.Publication, playlist: ServedMediaPlaylist, iFrames: ServedMediaPlaylist?, now: Double) {
        let name = publication.variant
        switch publication.source {
        case let .restored(segments, gaps):
            variants[name] = .init(playlist: playlist, iFramePlaylist: iFrames, segments: segments, gaps: gaps, status: .init(restoring: segments))
            return
        case let .segment(segment, file):
            variants[name]?.segments[segment] = file
            variants[name]?.status.recorded.add(bytes: file.size, duration: file.duration)
            variants[name]?.status.lastPublished = now
            if phase == .starting { phase = .live }
        case let .replacement(segment, file):
            variants[name]?.segments[segment] = file
        case let .mirrored(segments, gaps):
            for (segment, file) in segments {
                variants[name]?.segments[segment] = file
                variants[name]?.status.recorded.add(bytes: file.size, duration: file.duration)
            }
            variants[name]?.gaps.formUnion(gaps)
            if !segments.isEmpty || !gaps.isEmpty { variants[name]?.status.lastPublished = now }
        case let .gap(segment):
            variants[name]?.gaps.insert(segment)
            variants[name]?.status.lastPublished = now
        case .playlists:
            break
        }
        variants[name]?.playlist = playlist
        if let iFrames { variants[name]?.iFramePlaylist = iFrames }
    }
}
