import NIOCore

/// What the origin answers for one request, decided from the path and the registry alone
/// (no I/O), so every case is tested without a socket. See Docs/status-codes.md.
public enum OriginDecision: Equatable, Sendable {
    case playlist(RenderedPlaylist, CachePolicy)
    case segment(StreamRegistry.SegmentFile)
    case refuse(StatusPolicy.Refusal)
    /// Blocking reload: wait until the playlist lists `sequence` (or `seconds` pass), then
    /// decide again with `held: true`.
    case hold(Hold)

    public struct Hold: Sendable, Equatable {
        public let stream: String
        public let variant: String
        public let iFrames: Bool
        public let sequence: Int
        public let seconds: Double
    }

    /// Looks the resource up in a snapshot of the registry and lets `StatusPolicy` decide;
    /// for media and I-frame playlists, the delivery directives (`_HLS_skip`, `_HLS_msn`)
    /// choose the form and whether to hold. `held` is true once a request has been held: it
    /// is then answered with what is current, never held twice.
    public static func decide(_ path: Result<OriginPath, OriginPath.Rejection>, directives: Result<PlaylistDirectives, OriginPath.Rejection> = .success(.init()),
                              held: Bool = false, registry: StreamRegistry,
                              server: StatusPolicy.ServerCondition = .serving, policy: StatusPolicy = StatusPolicy()) -> OriginDecision {
        if let refusal = policy.admit(server) { return .refuse(refusal) }
        let resource: OriginPath
        switch path {
        case let .success(parsed): resource = parsed
        case let .failure(rejection): return .refuse(policy.refuse(rejection))
        }
        let stream = registry.stream(named: resource.stream)
        let variant = resource.variant.flatMap { stream?.variants[$0] }
        var facts = StatusPolicy.Facts(
            resource: .masterPlaylist, streamName: resource.stream, variantName: resource.variant, stream: stream?.phase, variantExists: variant != nil,
            targetDuration: stream?.targetDuration ?? 0, lastPublished: variant?.lastPublished, servingSince: registry.servingSince, now: registry.clock()
        )
        var bytes: RenderedPlaylist?
        var media: ServedMediaPlaylist?
        var file: StreamRegistry.SegmentFile?
        switch resource {
        case .master:
            bytes = stream?.master
        case .mediaPlaylist:
            facts.resource = .mediaPlaylist
            media = variant?.playlist
        case .iFramePlaylist:
            facts.resource = .iFramePlaylist
            media = variant?.iFramePlaylist
        case let .segment(_, _, name):
            file = variant?.segments[name]
            facts.resource = .segment(file != nil ? .listed : variant?.gaps.contains(name) == true ? .gap : .unlisted)
        }
        facts.playlistAvailable = bytes != nil || media != nil
        switch policy.decide(facts) {
        case let .refuse(refusal):
            return .refuse(refusal)
        case let .serve(cache):
            if let file { return .segment(file) }
            if let media, let variant = resource.variant {
                let hold = { (sequence: Int, seconds: Double) in
                    Hold(stream: resource.stream, variant: variant, iFrames: facts.resource == .iFramePlaylist, sequence: sequence, seconds: seconds)
                }
                return answer(media, directives: directives, held: held, cache: cache, targetDuration: facts.targetDuration, hold: hold, registry: registry, policy: policy)
            }
            guard let bytes else { return .refuse(StatusPolicy.missingContent) }
            return .playlist(bytes, cache)
        }
    }

    /// A media or I-frame playlist the status policy lets through: the form `_HLS_skip` asks
    /// for, now or after a hold (`_HLS_msn`), or 400 for a directive the draft refuses.
    private static func answer(_ media: ServedMediaPlaylist, directives: Result<PlaylistDirectives, OriginPath.Rejection>, held: Bool, cache: CachePolicy,
                               targetDuration: Int, hold: (Int, Double) -> Hold, registry: StreamRegistry, policy: StatusPolicy) -> OriginDecision {
        let asked: PlaylistDirectives
        switch directives {
        case let .success(parsed): asked = parsed
        case let .failure(rejection): return .refuse(policy.refuse(rejection))
        }
        switch held ? .answerNow : BlockingReload.decide(asked, playlist: media, targetDuration: targetDuration, offered: registry.offer.blockingReload) {
        case .answerNow:
            return .playlist(media.form(for: asked.skip), cache)
        case let .hold(sequence, seconds):
            return .hold(hold(sequence, seconds))
        case let .badRequest(reason):
            return .refuse(policy.refuse(.malformed(reason)))
        }
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
    /// Errors that may clear soon (404 for a not-yet-produced segment or a stale playlist,
    /// 503): kept one second, so an edge cache in front answers a crowd of players asking for
    /// the same missing thing with one request to the origin, and nobody waits long for the
    /// fix (Config/nginx/sideline-edge.conf).
    case transientError
    /// Answers that must never be reused: the streams API and metrics.
    case uncached

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
        case .gone: "public, max-age=3600"
        case let .gapSegment(maxAge): "public, max-age=\(maxAge)"
        }
    }
}
