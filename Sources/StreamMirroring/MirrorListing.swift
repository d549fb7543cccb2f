import HLSPlaylist

/// What a mirror lists and fetches, as a pure function of the upstream's media playlist and the
/// segment files the mirror holds. The mirror never lists a segment it does not hold, and it
/// lists entries in the upstream's order, so its playlist is always a prefix of the upstream's:
/// the same URIs, durations, discontinuities, dates and date ranges.
public struct MirrorListing: Sendable, Equatable {
    /// The upstream's entries the mirror holds, from the first on, stopping before the first
    /// it does not hold yet. GAP entries need no file; an entry the upstream no longer has
    /// (`lost`) is listed as GAP, so one lost segment does not hold back all that follow.
    public let playlist: MediaPlaylist
    /// Entries to download, in playlist order.
    public let downloads: [MediaSegment]

    /// Whether the mirror lists everything the upstream lists.
    public var caughtUp: Bool { downloads.isEmpty }

    public init(upstream: MediaPlaylist, held: Set<String>, lost: Set<String> = []) {
        var listed = upstream
        listed.segments = []
        listed.endList = false
        var downloads: [MediaSegment] = []
        for var entry in upstream.segments {
            if entry.gap || held.contains(entry.uri) {
                if downloads.isEmpty { listed.segments.append(entry) }
            } else if lost.contains(entry.uri) {
                entry.gap = true
                if downloads.isEmpty { listed.segments.append(entry) }
            } else {
                downloads.append(entry)
            }
        }
        playlist = listed
        self.downloads = downloads
    }

    /// The upstream's I-frame entries whose segments this listing names (and holds).
    public func iFrames(from upstream: MediaPlaylist) -> MediaPlaylist {
        let files = Set(playlist.segments.lazy.filter { !$0.gap }.map(\.uri))
        var listed = upstream
        listed.endList = false
        listed.segments = upstream.segments.filter { files.contains($0.uri) }
        return listed
    }

    /// Why the upstream's playlist cannot be followed from what the mirror already lists, or
    /// nil when it can: an EVENT playlist only grows, so everything the mirror listed must
    /// still be there, in the same place. A mismatch means the upstream recorded anew under
    /// the same name (its recording moved aside, or another server).
    public static func conflict(mirrored: MediaPlaylist, upstream: MediaPlaylist) -> String? {
        if mirrored.targetDuration != upstream.targetDuration {
            return "the upstream's EXT-X-TARGETDURATION is \(upstream.targetDuration), the mirror's recording has \(mirrored.targetDuration)"
        }
        if mirrored.mediaSequence != upstream.mediaSequence {
            return "the upstream's EXT-X-MEDIA-SEQUENCE is \(upstream.mediaSequence), the mirror's recording starts at \(mirrored.mediaSequence)"
        }
        if upstream.segments.count < mirrored.segments.count {
            return "the upstream lists \(upstream.segments.count) entries, fewer than the \(mirrored.segments.count) the mirror holds"
        }
        for (index, (mine, theirs)) in zip(mirrored.segments, upstream.segments).enumerated() {
            let same = mine.uri == theirs.uri && abs(mine.duration - theirs.duration) < 0.0005 && mine.discontinuity == theirs.discontinuity
                && mine.programDateTime == theirs.programDateTime
            if !same {
                return "entry \(upstream.mediaSequence + index) differs: the mirror holds \(mine.uri) (\(mine.duration) s), the upstream lists \(theirs.uri) (\(theirs.duration) s)"
            }
        }
        return nil
    }
}
