import NIOCore

/// What the origin answers for one request, decided from the path and the registry alone
/// (no I/O), so every case is tested without a socket. See Docs/status-codes.md.
public enum OriginDecision: Equatable, Sendable {
    case playlist(ByteBuffer, CachePolicy)
    case segment(StreamRegistry.SegmentFile)
    case refuse(status: Int, reason: String, retryAfter: Int?)

    public static func decide(_ path: Result<OriginPath, OriginPath.Rejection>, registry: StreamRegistry) -> OriginDecision {
        let resource: OriginPath
        switch path {
        case let .success(parsed): resource = parsed
        case .failure(.notFound): return .refuse(status: 404, reason: "no such resource", retryAfter: nil)
        case let .failure(.malformed(why)): return .refuse(status: 400, reason: why, retryAfter: nil)
        }
        let streamName: String
        switch resource {
        case let .master(s), let .mediaPlaylist(s, _), let .iFramePlaylist(s, _), let .segment(s, _, _): streamName = s
        }
        guard let stream = registry.stream(named: streamName) else {
            return .refuse(status: 404, reason: "no stream named '\(streamName)'", retryAfter: nil)
        }
        let playlistCache = CachePolicy.playlist(phase: stream.phase, targetDuration: stream.targetDuration)
        switch resource {
        case .master:
            guard let master = stream.master else { return notYet(stream) }
            return .playlist(master, playlistCache)
        case let .mediaPlaylist(_, variantName):
            guard let variant = stream.variants[variantName] else {
                return .refuse(status: 404, reason: "stream '\(streamName)' has no variant '\(variantName)'", retryAfter: nil)
            }
            guard let playlist = variant.playlist else { return notYet(stream) }
            return .playlist(playlist, playlistCache)
        case let .iFramePlaylist(_, variantName):
            guard let variant = stream.variants[variantName] else {
                return .refuse(status: 404, reason: "stream '\(streamName)' has no variant '\(variantName)'", retryAfter: nil)
            }
            guard let playlist = variant.iFramePlaylist else { return notYet(stream) }
            return .playlist(playlist, playlistCache)
        case let .segment(_, variantName, name):
            guard let file = stream.variants[variantName]?.segments[name] else {
                // Not produced yet, or never: HLS clients treat both as "try again later".
                return .refuse(status: 404, reason: "segment not available", retryAfter: nil)
            }
            return .segment(file)
        }
    }

    /// A stream that is starting has no playlist yet: 503 with Retry-After, as for any
    /// resource that will exist shortly (ARCHITECTURE.md, status table, "starting").
    private static func notYet(_ stream: StreamRegistry.Stream) -> OriginDecision {
        .refuse(status: 503, reason: "stream is starting; no segment yet", retryAfter: max(1, stream.targetDuration))
    }
}

/// Cache-Control values, named after what they protect (RFC 8216 §6.2.2 asks servers to
/// keep live playlists fresh; segments never change once listed).
public enum CachePolicy: Equatable, Sendable {
    /// Live playlists change every segment: caches may keep them half a target duration.
    case livePlaylist(maxAge: Int)
    /// Ended playlists never change again.
    case endedPlaylist
    /// Segments are immutable once listed.
    case segment
    /// Errors that may clear soon (404 for a not-yet-produced segment, 503).
    case transientError

    public static func playlist(phase: StreamRegistry.Phase, targetDuration: Int) -> CachePolicy {
        phase == .ended ? .endedPlaylist : .livePlaylist(maxAge: max(0, targetDuration / 2))
    }

    public var headerValue: String {
        switch self {
        case let .livePlaylist(maxAge): "public, max-age=\(maxAge)"
        case .endedPlaylist: "public, max-age=86400"
        case .segment: "public, max-age=31536000, immutable"
        case .transientError: "no-cache"
        }
    }
}
