/// `#EXT-X-PART` (draft-pantos-hls-rfc8216bis §4.4.4.9): one partial segment of a Low-Latency
/// HLS media playlist, listed before the URI of the segment it is part of (or after the last
/// entry, while that segment is still being made).
public struct PartialSegment: Sendable, Equatable {
    public var uri: String
    /// Seconds; at most the playlist's PART-TARGET.
    public var duration: Double
    /// `INDEPENDENT=YES`: the part starts with a frame that decodes on its own (an IDR, with PAT
    /// and PMT before it). Only such parts are where a player may join.
    public var independent: Bool
    /// `GAP=YES`: the part is not available (its segment is a gap).
    public var gap: Bool

    public init(uri: String, duration: Double, independent: Bool = false, gap: Bool = false) {
        self.uri = uri
        self.duration = duration
        self.independent = independent
        self.gap = gap
    }

    /// The tag's line. DURATION in microseconds, as EXTINF.
    public func render() -> String {
        var text = "#EXT-X-PART:DURATION=" + DecimalFormat.fixed(duration, places: 6) + ",URI=\"" + uri + "\""
        if independent { text += ",INDEPENDENT=YES" }
        if gap { text += ",GAP=YES" }
        return text + "\n"
    }

    /// The tag's attribute list; nil when malformed, when URI or DURATION is missing, or when a
    /// value is out of the draft's range (`PlaylistLimits` bounds the duration).
    public static func parse(attributes text: String) -> PartialSegment? {
        guard let list = AttributeList.parse(text), let uri = list["URI"], !uri.isEmpty, let durationText = list["DURATION"],
              let duration = PlaylistLimits.decimal(durationText, in: 0...PlaylistLimits.longestSegment),
              let independent = AttributeList.flag(list["INDEPENDENT"]), let gap = AttributeList.flag(list["GAP"]) else { return nil }
        return PartialSegment(uri: uri, duration: duration, independent: independent, gap: gap)
    }
}

extension PartialSegment {
    /// The folder of parts under a variant (`/live/<stream>/<variant>/parts/`).
    public static let partsFolder = "parts"

    /// The URI Sideline lists part `index` of the segment named `segment` (`000123.ts`) by,
    /// relative to the variant's media playlist: `parts/000123.<index>.ts`.
    public static func recordedURI(segment: String, index: Int) -> String {
        let stem = segment.utf8.count > 3 && segment.hasSuffix(".ts") ? String(segment.dropLast(3)) : segment
        return "\(partsFolder)/\(stem).\(index).ts"
    }
}
