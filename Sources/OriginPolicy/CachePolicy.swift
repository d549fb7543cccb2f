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
    /// A part of the segment being made (Low-Latency HLS): not final until its segment is
    /// listed (a server restarted before then makes that segment again), so kept one second,
    /// long enough for an edge to answer every player waiting on it with one request. Once
    /// listed a part is a range of the segment's file: `segment`.
    case openPart
    /// A redundant pair's steering manifest (issue 35): it changes when a box goes down or comes
    /// back, so a cache in front keeps it a second; players keep it its TTL by the manifest's
    /// own word.
    case steeringManifest
    /// Answers that must never be reused: the streams API and metrics.
    case uncached
    /// Refusals of the operators' and analysts' API calls: never stored at all.
    case noStore

    /// 410: the stream will not come back; caches may remember that.
    case gone
    /// 404 for an EXT-X-GAP entry: it will never exist, but clients re-request it, so caches
    /// may keep the answer for a target duration.
    case gapSegment(maxAge: Int)

    /// The answer's `Cache-Control` for an open stream (any cache may keep it).
    public var headerValue: String { headerValue(for: .everyone) }

    /// The answer's `Cache-Control` for `audience`: the same lifetime either way, but only the
    /// viewer's own cache may keep an answer about a private stream.
    public func headerValue(for audience: CacheAudience) -> String {
        switch lifetime {
        case let .store(directives): "\(audience.scope), \(directives)"
        case .revalidate: audience == .everyone ? "no-cache" : "private, no-cache"
        case .never: "no-store"
        }
    }

    /// `X-Accel-Expires` (seconds) for an answer whose lifetime a cache that ignores
    /// `Cache-Control` must still keep. Our private edge ignores it (it must ignore `private`,
    /// Config/nginx/sideline-edge-private.conf) and stores every 200 segment a year; nginx reads
    /// X-Accel-Expires before its own lifetimes and passes it to no client. Only an open part
    /// needs it: stored a year, a part the server makes again after a restart would be
    /// answered from the old bytes.
    public var edgeExpiry: Int? { self == .openPart ? 1 : nil }

    private enum Lifetime {
        case store(String)
        case revalidate
        case never
    }

    private var lifetime: Lifetime {
        switch self {
        case let .livePlaylist(maxAge): .store("max-age=\(maxAge)")
        case .endedPlaylist: .store("max-age=86400")
        case .segment: .store("max-age=31536000, immutable")
        case .transientError: .store("max-age=1")
        case .openPart: .store("max-age=1")
        case .steeringManifest: .store("max-age=1")
        case .uncached: .revalidate
        case .noStore: .never
        case .gone: .store("max-age=3600")
        case let .gapSegment(maxAge): .store("max-age=\(maxAge)")
        }
    }
}

/// Who may keep an answer (RFC 9111 §5.2.2).
public enum CacheAudience: Sendable, Equatable {
    /// An open stream's answers, the page, the APIs: any cache, shared ones included (`public`).
    case everyone
    /// Anything of a private stream (playlists, segments, VOD, clips, refusals): only the
    /// viewer's own cache (`private`), and `Vary` on the header a credential may ride on, so
    /// a cache that is not ours never answers a request without that credential with an answer
    /// made for one. (A credential in the URL is in the cache key already.) Our own edge
    /// (Config/nginx/sideline-edge-private.conf) still shares one copy: it asks the origin
    /// before every answer, and says so where it ignores `private`.
    case credentialHolders

    var scope: String { self == .everyone ? "public" : "private" }

    /// The request header the credential may ride on, for `Vary`; nil for open answers.
    public var varyOn: String? { self == .everyone ? nil : "Authorization" }

    /// A `Cache-Control` value some route set for everyone (`CachePolicy.headerValue`), as
    /// this audience may have it: `public` becomes `private` with the same lifetime, `no-cache`
    /// `private, no-cache`; `no-store` and what is private already stay. For answers built
    /// outside this file's policies (the APIs' JSON), so nothing of a private stream is left
    /// marked for shared caches.
    public func restricting(_ headerValue: String) -> String {
        guard self == .credentialHolders else { return headerValue }
        if headerValue.hasPrefix("public") { return "private" + headerValue.dropFirst("public".count) }
        if headerValue == CachePolicy.uncached.headerValue { return CachePolicy.uncached.headerValue(for: self) }
        return headerValue
    }

    /// `vary` (the answer's own `Vary`, if any) with the credential's header added.
    public func vary(adding vary: String?) -> String? {
        guard let varyOn else { return vary }
        guard let vary else { return varyOn }
        return vary.lowercased().contains(varyOn.lowercased()) ? vary : vary + ", " + varyOn
    }
}
