import Foundation

/// Why a playlist (media or multivariant) could not be read back. Each case names the line, so a person can
/// open the file and see what is wrong.
public enum PlaylistParseError: Error, Equatable, CustomStringConvertible {
    case missingHeader
    case invalidValue(tag: String, value: String, line: Int)
    case missingTargetDuration
    case uriWithoutExtinf(uri: String, line: Int)
    case extinfWithoutURI(line: Int)
    case uriWithoutStreamInf(uri: String, line: Int)
    case streamInfWithoutURI(line: Int)

    public var description: String {
        switch self {
        case .missingHeader: "the first line is not #EXTM3U"
        case let .invalidValue(tag, value, line): "line \(line): \(tag) has an invalid value '\(value)'"
        case .missingTargetDuration: "#EXT-X-TARGETDURATION is missing (RFC 8216 §4.3.3.1 requires it)"
        case let .uriWithoutExtinf(uri, line): "line \(line): URI '\(uri)' has no #EXTINF before it"
        case let .extinfWithoutURI(line): "line \(line): #EXTINF is not followed by a URI"
        case let .uriWithoutStreamInf(uri, line): "line \(line): URI '\(uri)' has no #EXT-X-STREAM-INF before it"
        case let .streamInfWithoutURI(line): "line \(line): #EXT-X-STREAM-INF is not followed by a URI"
        }
    }
}

extension MediaPlaylist {
    /// Reads a media playlist: the tags Sideline writes, in any order the RFC allows. Unknown
    /// tags and comments are skipped, as §4.1 tells clients to do.
    public static func parse(_ text: String) throws(PlaylistParseError) -> MediaPlaylist {
        try parseWithServerControl(text).playlist
    }

    /// Reads a live media playlist with the `#EXT-X-SERVER-CONTROL` its server sent (nil when it
    /// sent none): what a client (a mirror) may ask of that server on its next reload.
    ///
    /// Low-Latency HLS's tags are skipped here, as before Sideline listed parts: a mirror or an
    /// ingest reading an upstream's playlist does not use them, and a tag it does not use must
    /// not make it refuse the playlist (§4.1).
    public static func parseWithServerControl(_ text: String) throws(PlaylistParseError) -> (playlist: MediaPlaylist, serverControl: ServerControl?) {
        let parsed = try MediaPlaylistReader.read(text, lowLatency: false)
        return (parsed.playlist, parsed.serverControl)
    }

    /// Reads a live media playlist with its `#EXT-X-SERVER-CONTROL` and, when it lists parts
    /// (Low-Latency HLS), its edge: the parts of each segment (by media sequence number) and of
    /// the segment being made, the preload hint, the rendition reports. `edge` is nil when the
    /// playlist has no EXT-X-PART-INF. Parts without EXT-X-PART-INF are malformed (§4.4.3.7).
    /// A rendition report it cannot read is left out rather than refused: the draft lets a
    /// server leave out attributes whose values the client can take from this playlist.
    public static func parseLive(_ text: String) throws(PlaylistParseError) -> (playlist: MediaPlaylist, serverControl: ServerControl?, edge: LowLatencyEdge?) {
        try MediaPlaylistReader.read(text, lowLatency: true)
    }
}
