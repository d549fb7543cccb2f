import HLSPlaylist
import OriginPolicy

/// What the origin publishes, as plain values: each stream's phase, its master, its variants'
/// playlists and the segments and gaps they list, its markers and metadata, and what
/// `/api/streams` says of each variant; and the config's angle sets.
///
/// One way in: `apply(_:now:)` takes an `OriginChange` and says what must be rendered again
/// (`OriginEffect`). Rendering the bytes the origin sends, holding blocking requests and the
/// lock around this value are the registry's (`StreamRegistry`, OriginRegistry); every answer
/// the HTTP side gives is read from these values and what was rendered of them, never by
/// parsing rendered bytes back. Pure: rows in `Tests/OriginStateTests` run in milliseconds.
public struct OriginState: Sendable {
    public typealias Phase = StatusPolicy.StreamPhase

    public internal(set) var streams: [String: Stream] = [:]
    /// Counts every version `apply` makes (of any variant's playlists or any master), so
    /// versions are unique and rise across streams and across a stream registered again: a
    /// rendering made before a stream was registered again is older than the stream.
    public internal(set) var revision = 0
    /// The config's angle sets, served beside the streams under their own names.
    public let angleSets: [AngleSet]
    /// The pathways' order a redundant pair's steering manifests give (issue 35); nil on a box
    /// with no pair.
    public internal(set) var steering: Steering?
    /// Angles another box of the venue serves, by stream name (`RemoteAngle`); empty on a box
    /// with no `boxes` in its config.
    public internal(set) var remoteAngles: [String: RemoteAngle]
    /// A redundant pair's pathways, which the sets' masters carry as the streams' masters do
    /// (issue 35); nil on a box with no pair.
    public let setPathways: SetMaster.Pathways?

    /// A steering manifest's content (`SteeringPolicy.manifest`).
    public struct Steering: Sendable, Equatable {
        public var priority: [String]
        public var timeToLive: Int
    }

    /// `remoteAngles`: the streams other boxes serve, each with its box's base URL.
    public init(angleSets: [AngleSet] = [], remoteAngles: [String: String] = [:], setPathways: SetMaster.Pathways? = nil) {
        self.angleSets = angleSets
        self.remoteAngles = remoteAngles.mapValues { RemoteAngle(box: $0) }
        self.setPathways = setPathways
    }

    /// One segment file a variant lists.
    public struct SegmentFile: Sendable, Equatable {
        public let path: String
        public let size: Int
        /// EXTINF, in seconds.
        public let duration: Double
        /// What stands in this entry's slot when it is not the variant's own picture:
        /// `stand-in` (the slate, or the last picture held) or `sibling` (another rung's
        /// segment). Said to players in `CMSD-Static`. Nil for the variant's own segment, and
        /// for entries read back from disk at a restart (the recording does not say).
        public let fill: String?
        public init(path: String, size: Int, duration: Double = 0, fill: String? = nil) {
            self.path = path
            self.size = size
            self.duration = duration
            self.fill = fill
        }
    }

    public struct Variant: Sendable {
        /// The media playlist as recorded (without markers) with its incrementally kept text,
        /// nil before the first version: a part's version renders from it without walking it.
        public internal(set) var live: LiveMediaPlaylist?
        /// The media playlist as recorded (without markers), nil before the first version.
        public var recording: MediaPlaylist? { live?.playlist }
        /// Its Low-Latency HLS edge (`LowLatencyEdge`, without rendition reports, which are
        /// read from the siblings when it is rendered): nil where the stream lists no parts.
        public internal(set) var edge: LowLatencyEdge?
        /// What the parts published so far let a request find (`PartIndex`).
        public internal(set) var parts = PartIndex()
        /// The I-frame playlist, nil until a version brings one.
        public internal(set) var iFrames: MediaPlaylist?
        /// The version (`OriginState.revision`) of this variant's media playlist as served,
        /// new with each recording or markers placed in it: a rendering made for an older one is
        /// never stored over a newer one.
        public internal(set) var version = 0
        /// The I-frame playlist's version, which only publications change.
        public internal(set) var iFramesVersion = 0
        public internal(set) var segments: [String: SegmentFile] = [:]
        /// Entries listed as EXT-X-GAP: named in the playlist, never a file.
        public internal(set) var gaps: Set<String> = []
        /// What `/api/streams` says of the variant.
        public internal(set) var status = VariantStatus()

        /// The media sequence number of the last entry listed (one before the first while the
        /// playlist lists nothing), nil before the first version.
        public var lastSequence: Int? { recording.map { $0.mediaSequence + $0.segments.count - 1 } }
    }

    public struct Stream: Sendable {
        public internal(set) var title: String
        /// What the stream says about itself beside its title (config, or what a pusher sends).
        public internal(set) var description = ""
        public internal(set) var keywords = ""
        public internal(set) var phase: Phase
        public internal(set) var targetDuration: Int
        /// The master as published: the set's master and the VOD masters are made from it.
        public internal(set) var masterPlaylist: MultivariantPlaylist?
        /// The master's version, as `Variant.version` is the media playlist's.
        public internal(set) var masterVersion = 0
        /// The revision at which the stream was (last) registered: renderings of older
        /// versions belong to the stream it replaced.
        public internal(set) var registered = 0
        public internal(set) var variants: [String: Variant]
        /// The variant names in ladder order, best first.
        public internal(set) var variantOrder: [String]
        /// The analysts' markers, in every variant's media playlist (`Marker`), oldest first.
        public internal(set) var markers: [Marker] = []

        /// Live until ended or removed: CMSD's stream type.
        public var isLive: Bool { phase != .ended && phase != .removed }
    }

    /// An angle set as the config gives it (`angle_sets`): streams of one match, served
    /// together under the set's name, which no stream has.
    public struct AngleSet: Sendable, Equatable {
        public var name: String
        public var title: String
        /// The angles' streams, default angle first.
        public var streams: [String]
        /// Seconds of every segment of every angle (the config's `segment_duration`).
        public var segmentDuration: Double

        public init(name: String, title: String = "", streams: [String], segmentDuration: Double) {
            self.name = name
            self.title = title
            self.streams = streams
            self.segmentDuration = segmentDuration
        }

        /// The angle every player that does not switch angles plays.
        public var defaultStream: String { streams.first ?? "" }
    }
}

extension OriginState {
    public func stream(named name: String) -> Stream? { streams[name] }

    /// The one stream lookup of every route: the stream, or the refusal `Refusal.lookUp` gives
    /// (404 for a name no stream has, 410 for a removed one).
    public func existing(_ name: String) throws(Refusal) -> Stream {
        let found = streams[name]
        if found == nil, remoteAngles[name] != nil { throw Refusal.servedByAnotherBox(name) }
        if let refusal = Refusal.lookUp(stream: name, phase: found?.phase) { throw refusal }
        guard let found else { throw Refusal.noSuchStream(name) }
        return found
    }

    public func angleSet(named name: String) -> AngleSet? {
        angleSets.first { $0.name == name }
    }

    /// The one set lookup of every set route: the set, or 404.
    public func existingSet(_ name: String) throws(Refusal) -> AngleSet {
        guard let set = angleSet(named: name) else { throw Refusal.noSuchSet(name) }
        return set
    }
}

extension Refusal {
    /// A name no angle set has: 404. Names no other set: the sets there are is what
    /// `/api/sets` tells each caller, a private one only to a caller its token covers.
    public static func noSuchSet(_ name: String) -> Refusal {
        Refusal(.noSuchResource, "no angle set named '\(name)': /api/sets lists the sets you may watch (angle_sets in the config)")
    }
}
