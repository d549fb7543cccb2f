import NIOCore
import OriginPolicy
import OriginRegistry
import OriginState

/// What the origin answers for one request, decided from the path and the registry alone
/// (no I/O), so every case is tested without a socket. See Docs/status-codes.md.
public enum OriginDecision: Equatable, Sendable {
    case playlist(RenderedPlaylist, CachePolicy)
    case segment(StreamRegistry.SegmentFile)
    /// A part (Low-Latency HLS) of the segment being made, from memory.
    case part(ByteBuffer)
    /// A part of a listed segment: bytes `range` of its file.
    case partOfFile(StreamRegistry.SegmentFile, Range<Int>)
    /// The stream's Content Steering manifest (JSON), kept `timeToLive` seconds.
    case steering(ByteBuffer, timeToLive: Int)
    case refuse(Refusal)
    /// Blocking reload: wait until the playlist lists `sequence` (or `seconds` pass), then
    /// decide again with `held: true`.
    case hold(Hold)

    public struct Hold: Sendable, Equatable {
        public let stream: String
        public let variant: String
        public let iFrames: Bool
        public let sequence: Int
        /// With a part (Low-Latency HLS): until that part of `sequence` is listed.
        public var part: Int? = nil
        public let seconds: Double
    }

    /// Looks the resource up in a snapshot of the registry and lets `StatusPolicy` decide;
    /// for media and I-frame playlists, the delivery directives (`_HLS_skip`, `_HLS_msn`)
    /// choose the form and whether to hold. `held` is true once a request has been held: it
    /// is then answered with what is current, never held twice.
    ///
    /// `variantLimit`: the one variant the request's credential covers (`AccessGate`); the
    /// master is then the one listing only that variant.
    public static func decide(_ path: Result<OriginPath, OriginPath.Rejection>, directives: Result<PlaylistDirectives, OriginPath.Rejection> = .success(.init()),
                              held: Bool = false, variantLimit: String? = nil, registry: StreamRegistry,
                              server: StatusPolicy.ServerCondition = .serving, policy: StatusPolicy = StatusPolicy()) -> OriginDecision {
        decideTimed(path, directives: directives, held: held, variantLimit: variantLimit, registry: registry, server: server, policy: policy).decision
    }

    /// A decision with what the answer's headers say beside it.
    public struct Described: Sendable {
        public var decision: OriginDecision
        /// For a media or I-frame playlist, how long ago (seconds, on the registry's clock) its
        /// variant last published a segment: the `Server-Timing` a playlist carries.
        public var publishedAgo: Double?
        /// Whether the stream is still live (not ended, not removed): CMSD's stream type.
        public var live = false
    }

    /// `decide`, with what `Described` adds.
    public static func decideTimed(_ path: Result<OriginPath, OriginPath.Rejection>, directives: Result<PlaylistDirectives, OriginPath.Rejection> = .success(.init()),
                                   held: Bool = false, variantLimit: String? = nil, registry: StreamRegistry,
                                   server: StatusPolicy.ServerCondition = .serving, policy: StatusPolicy = StatusPolicy()) -> Described {
        describe(path, directives: directives, held: held, variantLimit: variantLimit, registry: registry, server: server, policy: policy)
    }

    private static func describe(_ path: Result<OriginPath, OriginPath.Rejection>, directives: Result<PlaylistDirectives, OriginPath.Rejection>,
                                 held: Bool, variantLimit: String?, registry: StreamRegistry,
                                 server: StatusPolicy.ServerCondition, policy: StatusPolicy) -> Described {
        if let refusal = policy.admit(server) { return Described(decision: .refuse(refusal)) }
        let resource: OriginPath
        switch path {
        case let .success(parsed): resource = parsed
        case let .failure(rejection): return Described(decision: .refuse(policy.refuse(rejection)))
        }
        // An angle set's master (no stream has a set's name).
        if case let .master(name) = resource, let set = registry.angleSet(named: name) {
            return setMaster(set, variantLimit: variantLimit, registry: registry, server: server, policy: policy)
        }
        // A set's steering manifest: the box's, as every stream's (404 on a box with no pair).
        if case let .steering(name) = resource, registry.angleSet(named: name) != nil {
            guard let steering = registry.steeringManifest else { return Described(decision: .refuse(policy.refuse(.notFound))) }
            return Described(decision: .steering(steering.manifest, timeToLive: steering.timeToLive), live: true)
        }
        let found = ResourceLookup.find(resource, variantLimit: variantLimit, in: registry)
        // An angle (or a set) another box serves: the edge sends its URLs there; here it is not found.
        if found == nil, let refusal = registry.servedElsewhere(resource.stream) {
            return Described(decision: .refuse(refusal))
        }
        var facts = StatusPolicy.Facts(
            resource: .masterPlaylist, streamName: resource.stream, variantName: resource.variant, stream: found?.phase, variantExists: found?.variantExists ?? false,
            targetDuration: found?.targetDuration ?? 0, lastPublished: found?.lastPublished, servingSince: registry.servingSince, now: registry.clock()
        )
        let bytes = found?.master
        let media = found?.media
        let file = found?.file
        switch resource {
        case .master:
            // A limit that names no variant of the stream (a credential outliving its ladder).
            if let variantLimit, let found, bytes == nil {
                return Described(decision: .refuse(.noSuchVariant(variantLimit, of: resource.stream, has: found.variantOrder)))
            }
        case .mediaPlaylist:
            facts.resource = .mediaPlaylist
        case .iFramePlaylist:
            facts.resource = .iFramePlaylist
        case .segment:
            facts.resource = .segment(file != nil ? .listed : found?.gap == true ? .gap : .unlisted)
        case .part:
            // A part made, or the hinted one (held below), passes as a listed segment would.
            let exists = found?.partBytes != nil || found?.partRange != nil || found?.hinted != nil
            facts.resource = .segment(exists ? .listed : .unlisted)
        case .steering:
            // Judged as its stream's master (410 once removed, 404 unknown); a box with no
            // pair has none to give: 404, as for any name it does not serve.
            guard found == nil || found?.steering != nil else { return Described(decision: .refuse(policy.refuse(.notFound))) }
        }
        facts.playlistAvailable = bytes != nil || media != nil || found?.steering != nil
        switch policy.decide(facts) {
        case var .refuse(refusal):
            // A part not made is never stored as a refusal by a cache in front (issue 34).
            if case .part = resource, refusal.kind != .streamRemoved { refusal.cache = .noStore }
            return Described(decision: .refuse(refusal))
        case let .serve(cache):
            // Live until ended or removed: CMSD's stream type, from the lookup above (not a second one).
            let live = found?.isLive ?? false
            if case let .part(_, variant, _, _) = resource, let found {
                return Described(decision: part(found, stream: resource.stream, variant: variant, held: held), live: live)
            }
            if let file { return Described(decision: .segment(file), live: live) }
            if case .steering = resource, let steering = found?.steering {
                return Described(decision: .steering(steering.manifest, timeToLive: steering.timeToLive), live: live)
            }
            if let media, let variant = resource.variant {
                let hold = { (sequence: Int, part: Int?, seconds: Double) in
                    Hold(stream: resource.stream, variant: variant, iFrames: facts.resource == .iFramePlaylist, sequence: sequence, part: part, seconds: seconds)
                }
                let decision = answer(media, directives: directives, held: held, cache: cache, targetDuration: facts.targetDuration, hold: hold, registry: registry, policy: policy)
                return Described(decision: decision, publishedAgo: facts.lastPublished.map { max(0, facts.now - $0) }, live: live)
            }
            guard let bytes else { return Described(decision: .refuse(StatusPolicy.missingContent)) }
            return Described(decision: .playlist(bytes, cache), live: live)
        }
    }

    /// A part the status policy lets through: its bytes, a range of its segment's file, or the
    /// hinted part held until it is made (then 503 if it still is not).
    private static func part(_ found: ResourceLookup, stream: String, variant: String, held: Bool) -> OriginDecision {
        if let bytes = found.partBytes { return .part(bytes) }
        if let file = found.file, let range = found.partRange { return .partOfFile(file, range) }
        if let hinted = found.hinted {
            let seconds = BlockingReload.holdFactor * Double(max(found.targetDuration, 1))
            if held { return .refuse(.partNotReady(sequence: hinted.sequence, part: hinted.part, waited: seconds)) }
            return .hold(Hold(stream: stream, variant: variant, iFrames: false, sequence: hinted.sequence, part: hinted.part, seconds: seconds))
        }
        return .refuse(StatusPolicy.missingContent)
    }

    /// A media or I-frame playlist the status policy lets through: the form `_HLS_skip` asks
    /// for, now or after a hold (`_HLS_msn`, `_HLS_part`), or 400 for a directive the draft
    /// refuses. A hold for a part that ends without it is a 503, as the draft says (only
    /// players that ask for parts get one); a hold for a segment answers what is current.
    private static func answer(_ media: ServedMediaPlaylist, directives: Result<PlaylistDirectives, OriginPath.Rejection>, held: Bool, cache: CachePolicy,
                               targetDuration: Int, hold: (Int, Int?, Double) -> Hold, registry: StreamRegistry, policy: StatusPolicy) -> OriginDecision {
        let asked: PlaylistDirectives
        switch directives {
        case let .success(parsed): asked = parsed
        case let .failure(rejection): return .refuse(policy.refuse(rejection))
        }
        switch BlockingReload.decide(asked, playlist: media, targetDuration: targetDuration, offered: registry.offer.blockingReload) {
        case .answerNow:
            return .playlist(media.form(for: asked.skip), cache)
        case let .hold(sequence, seconds):
            return held ? .playlist(media.form(for: asked.skip), cache) : .hold(hold(sequence, nil, seconds))
        case let .holdForPart(sequence, part, seconds):
            return held ? .refuse(.partNotReady(sequence: sequence, part: part, waited: seconds)) : .hold(hold(sequence, part, seconds))
        case let .badRequest(reason):
            return .refuse(policy.refuse(.malformed(reason)))
        }
    }
}
