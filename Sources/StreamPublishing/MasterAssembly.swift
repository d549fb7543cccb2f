import HLSPlaylist

/// Builds the master playlist from what the core says it may list (`SlotPublisher
/// .masterVariants`) and what is known of each rung: its rates and the format its encoder
/// really produced (from the stand-in, encoded before anything is served, or the pipeline).
public struct MasterAssembly: Sendable {
    public struct Rung: Sendable {
        public var name: String
        public var rates: RungRates
        public var format: VariantFormat?
        public init(name: String, rates: RungRates, format: VariantFormat?) {
            self.name = name
            self.rates = rates
            self.format = format
        }
    }

    public var segmentDuration: Double
    public var sessionData: [SessionData]
    public var startOffset: Double?
    /// URI of a rung's media and I-frame playlists, relative to the master.
    public var mediaPlaylistURI: @Sendable (String) -> String
    public var iFramePlaylistURI: @Sendable (String) -> String
    /// Absolute URIs of the same rung's media playlist on each backup server (a mirror): the
    /// master lists the rung once more for each, after all of its own rungs.
    public var backupURIs: @Sendable (String) -> [String]
    /// The other box of a redundant pair (issue 35), as a pathway of its own.
    public var pair: Pair?

    /// Two boxes on one timeline: this box's variants on pathway `own`, the other box's (the
    /// same rungs, absolute URIs) on pathway `other`, listed after them as redundant variants
    /// (RFC 8216 §6.3.3) and ranked by the steering manifest at `steeringURI` (relative to
    /// the master; nil: pathways without steering).
    public struct Pair: Sendable {
        public var own: String
        public var other: String
        public var otherURI: @Sendable (String) -> String
        public var steeringURI: String?

        public init(own: String, other: String, otherURI: @escaping @Sendable (String) -> String, steeringURI: String?) {
            self.own = own
            self.other = other
            self.otherURI = otherURI
            self.steeringURI = steeringURI
        }
    }

    /// EXT-X-SESSION-DATA for what a stream says about itself (`com.sideline.title`,
    /// `.description`, `.keywords`); empty values are left out.
    public static func sessionData(title: String, description: String, keywords: String) -> [SessionData] {
        [("title", title), ("description", description), ("keywords", keywords)]
            .filter { !$0.1.isEmpty }
            .map { SessionData(dataID: "com.sideline.\($0.0)", value: $0.1) }
    }

    public init(segmentDuration: Double, sessionData: [SessionData] = [], startOffset: Double? = nil,
                mediaPlaylistURI: @escaping @Sendable (String) -> String, iFramePlaylistURI: @escaping @Sendable (String) -> String,
                backupURIs: @escaping @Sendable (String) -> [String] = { _ in [] }, pair: Pair? = nil) {
        self.backupURIs = backupURIs
        self.pair = pair
        self.segmentDuration = segmentDuration
        self.sessionData = sessionData
        self.startOffset = startOffset
        self.mediaPlaylistURI = mediaPlaylistURI
        self.iFramePlaylistURI = iFramePlaylistURI
    }

    /// The master listing `listing` (rungs in ladder order); nil when one of them has no
    /// known format yet (its CODECS and RESOLUTION cannot be given).
    public func playlist(rungs: [Rung], listing: [String]) -> MultivariantPlaylist? {
        let chosen = rungs.filter { listing.contains($0.name) }
        guard !chosen.isEmpty, chosen.allSatisfy({ $0.format != nil }) else { return nil }
        let primaries = chosen.map { rung in
            VariantStream(
                uri: mediaPlaylistURI(rung.name),
                bandwidth: Bandwidth.peak(rung.rates),
                averageBandwidth: Bandwidth.average(rung.rates),
                codecs: rung.format!.codecs,
                resolution: .init(width: rung.format!.width, height: rung.format!.height),
                frameRate: rung.format!.frameRate,
                videoRange: "SDR",
                noClosedCaptions: true,
                pathwayID: pair?.own
            )
        }
        // RFC 8216 §6.3.3 (redundant streams): the same EXT-X-STREAM-INF with another URI is a
        // backup of that variant; a client that fails to load one may move to the other.
        // Backups come after every primary, so a client that reads the first entries only
        // (or does not know failover) starts on this server.
        let backups = zip(chosen, primaries).flatMap { rung, primary in
            backupURIs(rung.name).map { uri in
                var backup = primary
                backup.uri = uri
                backup.pathwayID = nil
                return backup
            }
        }
        // The other box of a pair: every rung again, on its pathway, before any mirror.
        let other: [VariantStream] = pair.map { pair in
            zip(chosen, primaries).map { rung, primary -> VariantStream in
                var copy = primary
                copy.uri = pair.otherURI(rung.name)
                copy.pathwayID = pair.other
                return copy
            }
        } ?? []
        let variants = primaries + other + backups
        let iFrames = chosen.compactMap { rung -> IFrameStream? in
            guard let format = rung.format, let video = format.codecs.first else { return nil }
            return IFrameStream(uri: iFramePlaylistURI(rung.name), bandwidth: Bandwidth.iFramePeak(rung.rates, segmentDuration: segmentDuration),
                                codecs: [video], resolution: .init(width: format.width, height: format.height), pathwayID: pair?.own)
        }
        return MultivariantPlaylist(variants: variants, iFrameStreams: iFrames, sessionData: sessionData, startOffset: startOffset,
                                    contentSteering: pair?.steeringURI.map { ContentSteering(serverURI: $0, pathwayID: pair?.own) })
    }

    /// The master served now (listing `listing`, the variants whose playlists answer 200) and
    /// the one recorded on disk (every rung, so a restart lists them all again); nil until
    /// every listed rung's format is known. `recorded` is nil while a rung not listed has no
    /// known format.
    public func masters(rungs: [Rung], listing: [String]) -> (served: MultivariantPlaylist, recorded: MultivariantPlaylist?)? {
        guard let served = playlist(rungs: rungs, listing: listing) else { return nil }
        return (served, playlist(rungs: rungs, listing: rungs.map(\.name)))
    }
}
