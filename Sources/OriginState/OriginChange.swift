import HLSPlaylist

/// Every change to what the origin publishes, as a value: the only way into `OriginState`
/// (`apply`) and so into `StreamRegistry`. The pipeline, the pushed streams, the mirrors, the
/// markers API and a restart each say what happened with one of these.
public enum OriginChange: Sendable {
    /// Announces a stream and its variants (ladder order, best first). Playlists answer 503
    /// until they have content. Announcing a stream again starts it afresh.
    case register(stream: String, title: String = "", variants: [String], targetDuration: Int)
    /// A new version of one variant's playlists and what it lists (`Publication`).
    case publish(Publication)
    /// The stream's master, as a value.
    case master(stream: String, MultivariantPlaylist)
    /// The stream's title, description and keywords, as `/api/streams` shows them.
    case metadata(stream: String, title: String, description: String, keywords: String)
    case phase(stream: String, OriginState.Phase)
    /// The stream's markers, every one (oldest first). The caller has kept them
    /// (`markers.json`) first: what a player sees survives a restart.
    case markers(stream: String, [Marker])
    /// Writing the variant's files fails (with the reason), or works again (nil).
    case writeError(stream: String, variant: String, String?)
    /// The effort step the variant's encoder runs at (0: as configured) and its name.
    case effort(stream: String, variant: String, step: Int, name: String)
    /// The variant's encoder failed (with the reason), or is healthy again (nil).
    case failure(stream: String, variant: String, String?)
    /// A part (Low-Latency HLS) of the segment after the variant's last entry is complete:
    /// `edge` is the variant's edge that lists it. Its bytes go with the change, to be served
    /// from memory until its segment is listed, then as a range of the segment's file.
    case part(stream: String, variant: String, Part, edge: LowLatencyEdge)
    /// What this box of a redundant pair says of the pathways (issue 35): their order and how
    /// long a player keeps the manifest (`SteeringPolicy`), for every stream's steering
    /// manifest. Nil on a box with no pair: no stream has one.
    case steering(priority: [String], timeToLive: Int)
    /// What the box that serves angle `stream` said of it (issue 35, `boxes`): its title, its
    /// state, and its master (nil keeps the one held: the box did not answer with one).
    case remoteAngle(stream: String, title: String, state: String, master: MultivariantPlaylist?)

    /// One part as the publisher hands it in.
    public struct Part: Sendable {
        /// The media sequence number of the segment it is part of.
        public var sequence: Int
        public var index: Int
        public var bytes: [UInt8]
        public var size: Int { bytes.count }

        public init(sequence: Int, index: Int, bytes: [UInt8]) {
            self.sequence = sequence
            self.index = index
            self.bytes = bytes
        }
    }

    /// What one `publish` brings in: a new version of one variant's playlists and what it lists
    /// that the state did not hold, said by where it came from. Every file is on disk (and
    /// every playlist written) before the publication is made.
    public struct Publication: Sendable {
        public var source: Source
        public var stream: String
        public var variant: String
        /// The variant's media playlist as it now is (kept incrementally by its writer, so the
        /// registry renders it without walking it).
        public var playlist: LiveMediaPlaylist
        /// Its I-frame playlist when this version changed it; nil keeps the one there is (a
        /// variant restored without one has none).
        public var iFrames: LiveMediaPlaylist?
        /// The variant's Low-Latency HLS edge as of this version (its newest entries' parts, the
        /// hint); nil where the stream lists no parts, and for a restored or mirrored version.
        public var edge: LowLatencyEdge?

        public init(_ source: Source, stream: String, variant: String, playlist: LiveMediaPlaylist, iFrames: LiveMediaPlaylist? = nil, edge: LowLatencyEdge? = nil) {
            self.source = source
            self.stream = stream
            self.variant = variant
            self.playlist = playlist
            self.iFrames = iFrames
            self.edge = edge
        }
    }

    /// What was published, and from where.
    public enum Source: Sendable {
        /// What an earlier run recorded (or a mirror stored), read back at a start: the variant
        /// is replaced whole, its status counted from these files, and nothing held is woken.
        case restored(segments: [String: OriginState.SegmentFile], gaps: Set<String>)
        /// A segment of this server's encoder or of a pusher, through the stream's publisher:
        /// counted, the variant's last publication, and the stream live once it has one.
        case segment(String, file: OriginState.SegmentFile)
        /// A late segment that takes its stand-in's place in the recording (`SegmentReplacement`):
        /// served for `/vod/`, clips and mirrors; not counted (its slot was), not a new entry.
        case replacement(String, file: OriginState.SegmentFile)
        /// A mirror's batch: the files stored since its last version and the entries its
        /// upstream lists as EXT-X-GAP. One version for a whole catch-up, not one per segment.
        case mirrored(segments: [String: OriginState.SegmentFile], gaps: Set<String>)
        /// An entry listed as EXT-X-GAP with no file: the variant keeps pace with its siblings
        /// while its encoder, or the disk, fails.
        case gap(String)
        /// Entries listed as EXT-X-GAP together (a long absence on the universal grid): one
        /// version for all of them.
        case gaps(Set<String>)
        /// New playlists that list nothing new (EXT-X-ENDLIST; a mirror's upstream reshaped).
        case playlists
    }
}

/// What an applied change asks of whoever serves the state: the renderings to make again and
/// the held requests to answer. Each rendering names the version it is for; one made for an
/// older version than the one stored is dropped.
public enum OriginEffect: Sendable, Equatable {
    /// Render the variant's media playlist at `version` (the state's live playlist and edge)
    /// with `markers` placed in it. `wake`: answer the requests held for what it lists once it
    /// is stored.
    case renderVariant(stream: String, variant: String, version: Int, markers: [Marker], wake: Bool)
    /// Render the publication's I-frame playlist at `version`.
    case renderIFrames(stream: String, variant: String, version: Int)
    /// Render the stream's master at `version`.
    case renderMaster(stream: String, version: Int)
    /// Answer every request held on the stream: it will never list more.
    case releaseHeld(stream: String)
    /// Keep the bytes of the change's part (`OriginChange.part`) to serve from memory, for the
    /// variant's version `version` (the one that lists it).
    case keepPart(stream: String, variant: String, sequence: Int, index: Int, version: Int)
}
