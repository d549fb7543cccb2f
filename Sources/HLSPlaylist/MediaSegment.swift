import Foundation

/// One entry of a media playlist (RFC 8216 §4.3.2). Each field names the tag it renders.
public struct MediaSegment: Sendable, Equatable {
    /// The URI line, relative to the playlist. Required.
    public var uri: String
    /// `#EXTINF:<duration>,` in seconds: the segment's real duration (§4.3.2.1). Required.
    public var duration: Double
    /// `#EXT-X-PROGRAM-DATE-TIME` (§4.3.2.6): the wall-clock time of the segment's first sample. Optional.
    public var programDateTime: Date?
    /// `#EXT-X-DISCONTINUITY` (§4.3.2.3) before this segment. Optional.
    public var discontinuity: Bool
    /// `#EXT-X-GAP` (draft-pantos-hls-rfc8216bis §4.4.4.7): the segment is missing. Optional.
    public var gap: Bool
    /// `#EXT-X-BYTERANGE:<length>@<offset>` (§4.3.2.2): only these bytes of the URI. Optional;
    /// needs EXT-X-VERSION 4.
    public var byteRange: ByteRange?
    /// `#EXT-X-DATERANGE` tags written just before this segment (§4.3.2.7). Optional.
    public var dateRanges: [DateRange]

    public struct ByteRange: Sendable, Equatable {
        public var length: Int
        public var offset: Int
        public init(length: Int, offset: Int) {
            self.length = length
            self.offset = offset
        }
    }

    public init(uri: String, duration: Double, programDateTime: Date? = nil, discontinuity: Bool = false, gap: Bool = false, byteRange: ByteRange? = nil,
                dateRanges: [DateRange] = []) {
        self.dateRanges = dateRanges
        self.uri = uri
        self.duration = duration
        self.programDateTime = programDateTime
        self.discontinuity = discontinuity
        self.gap = gap
        self.byteRange = byteRange
    }
}

extension MediaSegment {
    /// The file (and URL) name Sideline's recordings give the segment with media sequence
    /// number `sequence`: six digits at least, then `.ts`. The recording names its files so
    /// (`StreamLayout`), and the origin names a segment's parts before it is listed.
    public static func recordedName(sequence: Int) -> String {
        let digits = String(sequence)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".ts"
    }
}
