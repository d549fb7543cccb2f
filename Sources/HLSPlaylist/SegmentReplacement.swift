import Foundation

/// A real segment that came after its slot was filled (a pushed backlog sent when the uplink
/// returned): the live EVENT playlist keeps the stand-in players already saw, since it may only
/// grow (RFC 8216 §6.2.1), while the recording (VOD renditions, clips, exports, mirrors) takes
/// the real segment in the stand-in's place, so scrubbing back later shows the real footage.
///
/// It travels in the playlist itself, as an `EXT-X-DATERANGE` of Sideline's own CLASS appended
/// like any other line (§4.3.2.7 lets a date range stand anywhere; players ignore a CLASS they
/// do not know), so what is on disk is enough to restart, and a mirror that copies the lines
/// copies the replacement with them.
///
///     #EXT-X-DATERANGE:ID="replacement-000042.ts",CLASS="com.sideline.replacement",
///       START-DATE="...",DURATION=2.000,X-KEYFRAME="24064@0",X-REPLACES="000042.ts",X-URI="000042-late.ts"
public struct SegmentReplacement: Sendable, Equatable {
    /// The URI of the entry it replaces in the recording (`X-REPLACES`).
    public var replaces: String
    /// The real segment's URI, in the same directory (`X-URI`).
    public var uri: String
    /// Its EXTINF (`DURATION`).
    public var duration: Double
    /// The replaced entry's program date-time (`START-DATE`).
    public var startDate: Date
    /// Where its IDR is, for the I-frame playlist (`X-KEYFRAME`, `<length>@<offset>`).
    public var keyframe: MediaSegment.ByteRange?

    public init(replaces: String, uri: String, duration: Double, startDate: Date, keyframe: MediaSegment.ByteRange?) {
        self.replaces = replaces
        self.uri = uri
        self.duration = duration
        self.startDate = startDate
        self.keyframe = keyframe
    }

    /// The CLASS of a replacement's DATERANGE.
    public static let dateRangeClass = "com.sideline.replacement"

    /// The name the real segment is kept under beside the entry it replaces: `000042.ts` ->
    /// `000042-late.ts` (a plain name, so the origin serves it like any segment).
    public static func fileName(replacing uri: String) -> String {
        (uri.hasSuffix(".ts") ? String(uri.dropLast(3)) : uri) + "-late.ts"
    }

    public var dateRange: DateRange {
        var attributes = ["X-REPLACES": replaces, "X-URI": uri]
        if let keyframe { attributes["X-KEYFRAME"] = "\(keyframe.length)@\(keyframe.offset)" }
        return DateRange(id: "replacement-" + replaces, classLabel: Self.dateRangeClass, startDate: startDate, duration: duration, clientAttributes: attributes)
    }

    /// Reads a DATERANGE of the replacement CLASS; nil for any other, or one that lacks what a
    /// replacement needs.
    public init?(_ range: DateRange) {
        // The duration becomes an entry's EXTINF: bounded as a parsed EXTINF is.
        guard range.classLabel == Self.dateRangeClass, let replaces = range.clientAttributes["X-REPLACES"], let uri = range.clientAttributes["X-URI"],
              let duration = range.duration, duration <= PlaylistLimits.longestSegment else { return nil }
        var keyframe: MediaSegment.ByteRange?
        if let text = range.clientAttributes["X-KEYFRAME"] {
            let parts = text.split(separator: "@")
            guard parts.count == 2, let length = PlaylistLimits.count(parts[0]), let offset = PlaylistLimits.count(parts[1]), length > 0 else { return nil }
            keyframe = MediaSegment.ByteRange(length: length, offset: offset)
        }
        self.init(replaces: replaces, uri: uri, duration: duration, startDate: range.startDate, keyframe: keyframe)
    }
}

extension MediaPlaylist {
    /// Every replacement the playlist carries, by the URI of the entry it replaces (the first
    /// one wins: an entry is replaced once).
    public var replacements: [String: SegmentReplacement] {
        var found: [String: SegmentReplacement] = [:]
        for range in segments.lazy.flatMap(\.dateRanges) + trailingDateRanges {
            guard let replacement = SegmentReplacement(range), found[replacement.replaces] == nil else { continue }
            found[replacement.replaces] = replacement
        }
        return found
    }

    /// The recording with its replacements applied: each replaced entry names the real segment
    /// (its URI and EXTINF; no longer a GAP), the replacement date ranges are gone, and the fill
    /// spans (stand-in, sibling's copy) cover only the entries still filled. Seams
    /// stay as listed: an EXT-X-DISCONTINUITY that is no longer needed does no harm, and a
    /// missing one would. The playlist itself when it has none.
    public func applyingReplacements() -> MediaPlaylist {
        let found = replacements
        guard !found.isEmpty else { return self }
        var applied = self
        FillSpans.narrow(&applied, replaced: Set(segments.indices.filter { found[segments[$0].uri] != nil }))
        for index in applied.segments.indices {
            applied.segments[index].dateRanges.removeAll { $0.classLabel == SegmentReplacement.dateRangeClass }
            guard let replacement = found[applied.segments[index].uri] else { continue }
            applied.segments[index].uri = replacement.uri
            applied.segments[index].duration = replacement.duration
            applied.segments[index].gap = false
        }
        applied.trailingDateRanges.removeAll { $0.classLabel == SegmentReplacement.dateRangeClass }
        return applied
    }

    /// The entries (indices) a late segment may still replace: GAP entries and the entries of
    /// Sideline's fill spans (stand-ins and siblings' copies, from the date range that opens a
    /// span to the entry carrying the same ID with its END-DATE), less those replaced already.
    /// A span left open by a stopped process ends at the last entry the process wrote before
    /// the next EXT-X-DISCONTINUITY that is not a fill's own.
    public var replaceableEntries: [Int] {
        let found = replacements
        let filled = Set(FillSpans.spans(in: self).flatMap(\.entries))
        return segments.indices.filter { (segments[$0].gap || filled.contains($0)) && found[segments[$0].uri] == nil }
    }

    /// This I-frame playlist with `media`'s replacements applied: a replaced entry's I-frame is
    /// the real segment's IDR, placed where the entry lies (also for a replaced GAP, which had
    /// none). A replacement without a known keyframe leaves its entry out.
    public func applyingReplacements(of media: MediaPlaylist) -> MediaPlaylist {
        let found = media.replacements
        guard !found.isEmpty else { return self }
        let byURI = Dictionary(segments.map { ($0.uri, $0) }, uniquingKeysWith: { first, _ in first })
        var applied = self
        applied.segments = media.segments.compactMap { entry in
            if let replacement = found[entry.uri] {
                guard let keyframe = replacement.keyframe else { return nil }
                return MediaSegment(uri: replacement.uri, duration: replacement.duration, discontinuity: entry.discontinuity, byteRange: keyframe)
            }
            return byURI[entry.uri]
        }
        return applied
    }
}
