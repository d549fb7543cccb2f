import HLSPlaylist

/// Which of an upstream Sideline's variants a mirror follows, and the master playlist it
/// serves for them: the upstream's, keeping only the chosen variants and their I-frame
/// playlists. Entries with absolute URIs are left out: they are backups on other servers
/// (redundant streams the upstream lists, maybe this very mirror), not variants of its own.
public enum MirrorMaster {
    public struct Selection: Sendable, Equatable {
        public let master: MultivariantPlaylist
        /// Variant names in the upstream's order (best first).
        public let variants: [String]
        /// Variants with an I-frame playlist.
        public let iFrameVariants: Set<String>
    }

    public struct Rejection: Error, Equatable, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The variant a Sideline master URI names (`720p/index.m3u8` or `720p/iframes.m3u8`);
    /// nil for a URI of another shape.
    public static func variantName(of uri: String, playlist: String) -> String? {
        MultivariantPlaylist.variantName(ofURI: uri, playlist: playlist)
    }

    /// `chosen`: the variants to follow (nil: all of them).
    public static func select(_ upstream: MultivariantPlaylist, variants chosen: [String]?,
                              mediaPlaylist: String = "index.m3u8", iFramePlaylist: String = "iframes.m3u8") throws(Rejection) -> Selection {
        var master = upstream
        master.variants = []
        master.iFrameStreams = []
        // A redundant pair's steering is the pair's (issue 35): the mirror is the analyst's own
        // copy, one server with no pathways and no steering manifest.
        master.contentSteering = nil
        var names: [String] = []
        for variant in upstream.variants where !variant.uri.contains("://") {
            guard let name = variantName(of: variant.uri, playlist: mediaPlaylist) else {
                throw Rejection(description: "the upstream's master lists '\(variant.uri)', which is not a Sideline variant ({variant}/\(mediaPlaylist)); sideline mirror follows Sideline servers")
            }
            if names.contains(name) { continue }
            if chosen.map({ $0.contains(name) }) ?? true {
                names.append(name)
                var own = variant
                own.pathwayID = nil
                master.variants.append(own)
            }
        }
        let available = upstream.variants.compactMap { variantName(of: $0.uri, playlist: mediaPlaylist) }
        if let chosen, let missing = chosen.first(where: { !available.contains($0) }) {
            throw Rejection(description: "the upstream has no variant '\(missing)'; it has \(available.isEmpty ? "none yet" : available.joined(separator: ", "))")
        }
        if names.isEmpty {
            throw Rejection(description: "the upstream's master lists no variant yet")
        }
        var iFrameVariants: Set<String> = []
        for stream in upstream.iFrameStreams {
            guard let name = variantName(of: stream.uri, playlist: iFramePlaylist), names.contains(name) else { continue }
            iFrameVariants.insert(name)
            var own = stream
            own.pathwayID = nil
            master.iFrameStreams.append(own)
        }
        return Selection(master: master, variants: names, iFrameVariants: iFrameVariants)
    }
}
