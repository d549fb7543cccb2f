import Foundation

/// A media playlist (RFC 8216 §4.3.3). Sideline writes EVENT playlists: segments are only
/// ever appended, the media sequence stays 0, and EXT-X-ENDLIST closes the stream.
public struct MediaPlaylist: Sendable, Equatable {
    public enum PlaylistType: String, Sendable {
        case event = "EVENT"
        case vod = "VOD"
    }

    /// `#EXT-X-VERSION`. 3 is the lowest that allows decimal EXTINF durations (§4.3.2.1, §7).
    public var version: Int
    /// `#EXT-X-TARGETDURATION` (§4.3.3.1): an upper bound, constant for the stream, for every
    /// EXTINF rounded to the nearest integer. Required.
    public var targetDuration: Int
    /// `#EXT-X-MEDIA-SEQUENCE` (§4.3.3.2): the sequence number of the first listed segment.
    public var mediaSequence: Int
    /// `#EXT-X-DISCONTINUITY-SEQUENCE` (§4.3.3.3); rendered only when non-zero.
    public var discontinuitySequence: Int
    /// `#EXT-X-PLAYLIST-TYPE` (§4.3.3.5).
    public var playlistType: PlaylistType?
    /// `#EXT-X-INDEPENDENT-SEGMENTS` (§4.3.5.1): every segment starts with an IDR.
    public var independentSegments: Bool
    /// `#EXT-X-I-FRAMES-ONLY` (§4.3.3.6): each entry is one I-frame, its EXTINF the time until
    /// the next. Needs EXT-X-VERSION 4.
    public var iFramesOnly: Bool
    public var segments: [MediaSegment]
    /// The media sequence number of the last entry (one before the first while there is none).
    public var lastSequence: Int { mediaSequence + segments.count - 1 }
    /// `#EXT-X-DATERANGE` tags after the last entry (§4.3.2.7 lets them stand anywhere): the
    /// markers added since the last entry was published (`placingLive`).
    public var trailingDateRanges: [DateRange] = []
    /// `#EXT-X-ENDLIST` (§4.3.3.4): no segment will be added.
    public var endList: Bool

    public init(
        version: Int = 3,
        targetDuration: Int,
        mediaSequence: Int = 0,
        discontinuitySequence: Int = 0,
        playlistType: PlaylistType? = .event,
        independentSegments: Bool = true,
        iFramesOnly: Bool = false,
        segments: [MediaSegment] = [],
        endList: Bool = false
    ) {
        self.version = version
        self.targetDuration = targetDuration
        self.mediaSequence = mediaSequence
        self.discontinuitySequence = discontinuitySequence
        self.playlistType = playlistType
        self.independentSegments = independentSegments
        self.iFramesOnly = iFramesOnly
        self.segments = segments
        self.endList = endList
    }

    /// Total listed duration in seconds.
    public var duration: Double { segments.reduce(0) { $0 + $1.duration } }

    /// The segments whose EXTINF, rounded to the nearest integer, exceeds the target duration.
    /// RFC 8216 §4.3.3.1: "The EXTINF duration of each Media Segment in the Playlist file, when
    /// rounded to the nearest integer, MUST be less than or equal to the target duration."
    public var segmentsExceedingTargetDuration: [MediaSegment] {
        // Compared as Doubles: no conversion that could trap on a duration no Int holds.
        segments.filter { $0.duration.rounded() > Double(targetDuration) }
    }
}
