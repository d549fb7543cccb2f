/// The multivariant playlist of an angle set (`/live/<set>/master.m3u8`): every angle as an
/// alternative VIDEO rendition, in the shape of RFC 8216 §8.7 ("Master Playlist with Video
/// Renditions": one Group of camera angles per variant stream).
///
/// - One `EXT-X-STREAM-INF` per rung of the default angle, naming a VIDEO group (`VIDEO=`,
///   §4.3.4.2) called after the rung, and whose own URI is the default angle's playlist of that
///   rung: a player that does not switch angles plays the default angle.
/// - Each group holds one `EXT-X-MEDIA:TYPE=VIDEO` (§4.3.4.1) per angle, in set order, whose
///   URI is that angle's playlist of the matching rung (the same name, else its rung nearest in
///   height; the default angle's spelled with a `./` segment, for VLC: see `render`). Every group has the same members with the same attributes but URI, as §4.3.4.2.1
///   requires of groups of one TYPE; DEFAULT=YES and AUTOSELECT=YES on the default angle only.
/// - Each angle's playlists hold muxed audio and video (the example's `audio-video.m3u8`), so
///   there is no `EXT-X-MEDIA:TYPE=AUDIO`: an audio rendition with a URI needs an audio-only
///   playlist, which Sideline does not make, and one without a URI would say the audio is in
///   the selected angle's playlist, which is already so. A player that switches angles plays
///   the sound of the angle it shows.
/// - `CODECS` of a variant stream lists every format of any rendition it may play and
///   `BANDWIDTH` the highest peak among them (§4.3.4.2); `RESOLUTION` and `FRAME-RATE` are the
///   default angle's (a set's angles share one frame rate).
/// - I-frame playlists (§4.3.4.3) of every angle, the default angle's first.
///
/// Pure: the angles' own masters in, text out; the origin renders it once per version of them.
public struct SetMaster: Sendable, Equatable {
    public struct Angle: Sendable, Equatable {
        /// The stream's name: `../<stream>/` of every URI.
        public var stream: String
        /// What the angle is called (`NAME`); the stream's name when empty, unquotable or taken.
        public var title: String
        /// The angle's own master as it serves it (rung URIs `<rung>/index.m3u8`).
        public var master: MultivariantPlaylist
        /// Whether another box of the venue serves it (`boxes`): on the other pathway its URIs
        /// stay relative, for the edge to route, since the pair's other box does not serve it.
        public var remote: Bool

        public init(stream: String, title: String, master: MultivariantPlaylist, remote: Bool = false) {
            self.stream = stream
            self.title = title
            self.master = master
            self.remote = remote
        }
    }

    /// A redundant pair's two pathways (issue 35): this box's, on which every URI is relative,
    /// and the other box's, on which the same angles are that box's (absolute URIs), with the
    /// steering manifest that ranks them.
    public struct Pathways: Sendable, Equatable {
        public var own: String
        public var other: String
        /// The other box's `/live` (its base URL, without a trailing slash, and `/live`): each
        /// angle's URIs there are under it. A credential is carried in it (`mappingURIs`).
        public var otherLive: String
        /// The steering manifest's URI, relative to the set's master.
        public var steeringURI: String

        /// `otherBase`: the other box's base URL, without a trailing slash.
        public init(own: String, other: String, otherBase: String, steeringURI: String) {
            self.own = own
            self.other = other
            self.otherLive = otherBase + "/live"
            self.steeringURI = steeringURI
        }
    }

    /// Default angle first.
    public var angles: [Angle]
    /// `com.sideline.title`: what the set calls the match.
    public var title: String
    /// The pair's pathways; nil on a box with no pair. Live only: a VOD window's master (a
    /// `query`) lists this box's URIs alone.
    public var pathways: Pathways?

    public init(angles: [Angle], title: String, pathways: Pathways? = nil) {
        self.angles = angles
        self.title = title
        self.pathways = pathways
    }

    /// One rung of an angle, read from its master: the rung's name and its variant stream.
    struct Rung {
        var name: String
        var variant: VariantStream
        var iFrames: IFrameStream?
    }

    /// The rungs an angle's master lists in Sideline's layout, best first; backups on other
    /// servers (absolute URIs) and URIs of other shapes left out.
    static func rungs(of master: MultivariantPlaylist) -> [Rung] {
        var seen: Set<String> = []
        return master.variants.compactMap { variant in
            guard let name = MultivariantPlaylist.variantName(ofURI: variant.uri, playlist: "index.m3u8"), seen.insert(name).inserted else { return nil }
            let iFrames = master.iFrameStreams.first { MultivariantPlaylist.variantName(ofURI: $0.uri, playlist: "iframes.m3u8") == name }
            return Rung(name: name, variant: variant, iFrames: iFrames)
        }
    }

    /// The angle's rung that goes with the default angle's `rung`: the same name, else the one
    /// nearest in height (the higher of two as near), else its first.
    static func matching(_ rung: Rung, in rungs: [Rung]) -> Rung? {
        if let same = rungs.first(where: { $0.name == rung.name }) { return same }
        guard let height = rung.variant.resolution?.height else { return rungs.first }
        return rungs.min { a, b in
            let da = a.variant.resolution.map { abs($0.height - height) } ?? Int.max
            let db = b.variant.resolution.map { abs($0.height - height) } ?? Int.max
            if da != db { return da < db }
            return (a.variant.resolution?.height ?? 0) > (b.variant.resolution?.height ?? 0)
        }
    }

    /// Each angle's `NAME`: its title, or its stream name when the title is empty, cannot be
    /// quoted, or another angle already has it (§4.3.4.1.1: NAMEs in a group are unique).
    var names: [String] {
        var taken: Set<String> = []
        return angles.map { angle in
            let title = angle.title
            let name = !title.isEmpty && SessionData.isQuotable(title) && !taken.contains(title) && !angles.contains(where: { $0.stream == title && $0.stream != angle.stream }) ? title : angle.stream
            taken.insert(name)
            return name
        }
    }

    /// The text of the set's master; nil when the default angle lists no rung (it has no
    /// master yet). `variantLimit`: a credential's one rung; only the default angle's rung of
    /// that name is listed (nil when it has none). `query`: added to every URI (a VOD window's,
    /// `TimeWindow.query`; empty for none).
    public func render(variantLimit: String? = nil, query: String = "") -> String? {
        let carried = query.isEmpty ? "" : "?" + query
        guard let first = angles.first else { return nil }
        var primary = Self.rungs(of: first.master)
        if let variantLimit { primary = primary.filter { $0.name == variantLimit } }
        guard !primary.isEmpty else { return nil }
        let paired = query.isEmpty ? pathways : nil
        let sessionData = title.isEmpty ? [] : [SessionData(dataID: "com.sideline.title", value: title)]
        // The header as a stream's master renders it (version 4 for the I-frame playlists).
        var text = MultivariantPlaylist(version: 4, variants: [], sessionData: sessionData, startOffset: first.master.startOffset,
                                        contentSteering: paired.map { ContentSteering(serverURI: $0.steeringURI, pathwayID: $0.own) }).render()
        // This box's pathway: every URI relative to the set's master.
        var iFrames = lines(primary, into: &text, pathway: paired?.own, groupSuffix: "") { angle, rung, file, isDefault in
            // The default angle's rendition is the variant stream's own playlist, named with a
            // `./` segment (RFC 3986 §5.2.4 resolves it away): VLC 3.0 keys renditions by their
            // URI's text, leaves out every variant stream whose URI text is a rendition's, and
            // then plays the first rendition in URI order, not the default angle
            // (Docs/operations.md, "Angle sets", "Players").
            "../\(angle.stream)/\(rung)/" + (isDefault ? "./" : "") + file + carried
        }
        // The other box's: the same angles there; an angle a third box serves stays relative.
        if let paired {
            iFrames += lines(primary, into: &text, pathway: paired.other, groupSuffix: "-" + paired.other) { angle, rung, file, _ in
                angle.remote ? "../\(angle.stream)/\(rung)/\(file)" : "\(paired.otherLive)/\(angle.stream)/\(rung)/\(file)"
            }
        }
        for stream in iFrames {
            text += "#EXT-X-I-FRAME-STREAM-INF:" + stream.attributes.joined(separator: ",") + "\n"
        }
        return text
    }

    /// One pathway's lines: per rung of the default angle a VIDEO group (named after the rung,
    /// plus `groupSuffix`) of every angle and its variant stream, appended to `text`; returns the
    /// pathway's I-frame streams. `location(angle, rung, file, isDefaultRendition)`: a URI.
    private func lines(_ primary: [Rung], into text: inout String, pathway: String?, groupSuffix: String,
                       location: (Angle, String, String, Bool) -> String) -> [IFrameStream] {
        let names = names
        let angleRungs = angles.map { Self.rungs(of: $0.master) }
        var iFrames: [[IFrameStream]] = Array(repeating: [], count: angles.count)
        var listedIFrames: [Set<String>] = Array(repeating: [], count: angles.count)
        for rung in primary {
            // A rung name is a stream-name-like word: quotable, and a valid GROUP-ID.
            let group = rung.name + groupSuffix
            var variant = rung.variant
            variant.uri = location(angles[0], rung.name, "index.m3u8", false)
            variant.pathwayID = pathway
            for (index, angle) in angles.enumerated() {
                guard let match = index == 0 ? rung : Self.matching(rung, in: angleRungs[index]) else { continue }
                let isDefault = index == 0
                let uri = location(angle, match.name, "index.m3u8", isDefault)
                text += "#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"\(group)\",NAME=\"\(names[index])\",DEFAULT=\(isDefault ? "YES" : "NO"),AUTOSELECT=\(isDefault ? "YES" : "NO"),URI=\"\(uri)\"\n"
                variant.bandwidth = max(variant.bandwidth, match.variant.bandwidth)
                if let average = match.variant.averageBandwidth { variant.averageBandwidth = max(variant.averageBandwidth ?? 0, average) }
                for codec in match.variant.codecs where !variant.codecs.contains(codec) { variant.codecs.append(codec) }
                if let frames = match.iFrames, listedIFrames[index].insert(match.name).inserted {
                    var listed = frames
                    listed.uri = location(angle, match.name, "iframes.m3u8", false)
                    listed.pathwayID = pathway
                    iFrames[index].append(listed)
                }
            }
            text += "#EXT-X-STREAM-INF:" + (variant.attributes + ["VIDEO=\"\(group)\""]).joined(separator: ",") + "\n" + variant.uri + "\n"
        }
        return Array(iFrames.joined())
    }
}

extension SetMaster {
    /// The same set with every angle's master's URIs through `transform` (`MultivariantPlaylist.mappingURIs`),
    /// and the other pathway's `/live` with them (a private set's credential, `BackupCredential`).
    public func mappingURIs(_ transform: (String) -> String) -> SetMaster {
        var mapped = self
        for index in mapped.angles.indices { mapped.angles[index].master = mapped.angles[index].master.mappingURIs(transform) }
        if let live = pathways?.otherLive {
            let carried = transform(live + "/")
            if carried.hasSuffix("/") { mapped.pathways?.otherLive = String(carried.dropLast()) }
        }
        return mapped
    }
}
