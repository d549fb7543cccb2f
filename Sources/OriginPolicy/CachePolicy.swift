/// Cache-Control values, named after what they protect (RFC 8216 §6.2.2 asks servers to
/// keep live playlists fresh; segments never change once listed).
public enum CachePolicy: Equatable, Sendable {
    /// Live playlists change every segment: caches may keep them half a target duration.
    case livePlaylist(maxAge: Int)
    /// Ended playlists never change again.
    case endedPlaylist
    /// Segments are immutable once listed.
    case segment
    /// Errors that may clear soon (404 for a not-yet-produced segment or a stale playlist,
    /// 503): kept one second, so an edge cache in front answers a crowd of players asking for
    /// the same missing thing with one request to the origin, and nobody waits long for the
    /// fix (Config/nginx/sideline-edge.conf).
    case transientError
    /// Answers that must never be reused: the streams API and metrics.
    case uncached
    /// Refusals of the operators' and analysts' API calls: never stored at all.
    case noStore

    /// 410: the stream will not come back; caches may remember that.
    case gone
    /// 404 for an EXT-X-GAP entry: it will never exist, but clients re-request it, so caches
    /// may keep the answer for a target duration.
    case gapSegment(maxAge: Int)

    public var headerValue: String {
        switch self {
        case let .livePlaylist(maxAge): "public, max-age=\(maxAge)"
        case .endedPlaylist: "public, max-age=86400"
        case .segment: "public, max-age=31536000, immutable"
        case .transientError: "public, max-age=1"
        case .uncached: "no-cache"
        case .noStore: "no-store"
        case .gone: "public, max-age=3600"
        case let .gapSegment(maxAge): "public, max-age=\(maxAge)"
        }
    }
}
