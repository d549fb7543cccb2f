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

    ///
    /// A late segment that replaces an entry in the upstream's recording (`SegmentReplacement`,
    /// a date range before a later entry or after the last) is a file to download too: the
    /// entry that carries its date range is listed once the file is held, so the mirror's
    /// recording (VOD, clips) takes the real segment as the upstream's does. A replacement the
    /// upstream no longer has (`lost`) is left out: the mirror keeps the stand-in.
    public init(upstream: MediaPlaylist, held: Set<String>, lost: Set<String> = []) {
        var listed = upstream
        listed.segments = []
        listed.trailingDateRanges = []
        listed.endList = false
        var downloads: [MediaSegment] = []
        /// The date ranges as listed (lost replacements left out), and the replacement files still to fetch.
        func ranges(_ ranges: [DateRange]) -> (kept: [DateRange], missing: [MediaSegment]) {
            var kept: [DateRange] = []
            var missing: [MediaSegment] = []
            for range in ranges {
                guard let replacement = SegmentReplacement(range) else {
                    kept.append(range)
                    continue
                }
                if lost.contains(replacement.uri) { continue }
                kept.append(range)
                if !held.contains(replacement.uri) { missing.append(MediaSegment(uri: replacement.uri, duration: replacement.duration)) }
            }
            return (kept, missing)
        }
        for var entry in upstream.segments {
            let (kept, missing) = ranges(entry.dateRanges)
            entry.dateRanges = kept
            downloads += missing
            if entry.gap || held.contains(entry.uri) {
                if downloads.isEmpty { listed.segments.append(entry) }
            } else if lost.contains(entry.uri) {
                entry.gap = true
                if downloads.isEmpty { listed.segments.append(entry) }
            } else {
                downloads.append(entry)
            }
        }
        let (trailing, missing) = ranges(upstream.trailingDateRanges)
        downloads += missing
        if downloads.isEmpty { listed.trailingDateRanges = trailing }
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
