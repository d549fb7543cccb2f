import HLSPlaylist
import SidelineCore

/// What the origin answers, as a pure function of what is asked for, the state of the stream
/// and its variant, the server's own condition, and the time. No I/O and no clock reads: the
/// caller passes `now`, so every row of the table is tested by moving time, not by sleeping.
///
/// The table, the reason for each row and what real players do with each answer are in
/// `Docs/status-codes.md`; `ARCHITECTURE.md` has the short form.
public struct StatusPolicy: Sendable, Equatable {
    /// A media playlist is stale when nothing new was published for this many target
    /// durations. RFC 8216 §6.3.4 lets a client give up after reloading an unchanged playlist
    /// for 1.5 target durations; answering 404 earlier than that would be a false alarm.
    public var staleFactor: Double
    /// How long past its due time a slot may wait for its segment before it is filled
    /// (`stream.late_grace`), counted on top of `staleFactor`: a stalled stream's first
    /// stand-in comes one segment duration plus the grace after its last entry. Without it, at
    /// the defaults (2 s segments, 1 s grace) that stand-in came exactly as the playlist turned
    /// stale, and a player reloading in between got the 404 that ends ffmpeg's playback
    /// (Docs/status-codes.md, "The grace").
    public var lateGrace: Double
    /// Retry-After while the server drains for shutdown: long enough for a restart.
    public var drainingRetryAfter: Int
    /// Retry-After when admission control refuses a request.
    public var overloadedRetryAfter: Int

    public init(staleFactor: Double = 1.5, lateGrace: Double = LateSegmentFill.defaultGrace, drainingRetryAfter: Int = 5, overloadedRetryAfter: Int = 1) {
        self.staleFactor = staleFactor
        self.lateGrace = max(0, lateGrace)
        self.drainingRetryAfter = drainingRetryAfter
        self.overloadedRetryAfter = overloadedRetryAfter
    }

    public enum Resource: Sendable, Equatable {
        case masterPlaylist
        case mediaPlaylist
        case iFramePlaylist
        case segment(SegmentState)
    }

    public enum SegmentState: Sendable, Equatable {
        /// In the playlist, with a file behind it.
        case listed
        /// In the playlist as EXT-X-GAP: its variant's encoder had failed; there is no file.
        case gap
        /// Not (yet) in the playlist.
        case unlisted
    }

    public enum ServerCondition: Sendable, Equatable {
        case serving
        /// Shutting down: in-flight responses finish, new requests are turned away.
        case draining
        /// Admission control: more requests in flight than configured.
        case overloaded
    }

    /// The stream's life, as far as answers depend on it.
    public enum StreamPhase: String, Sendable, Equatable, CaseIterable {
        /// Encoding has begun; nothing is published yet.
        case starting
        case live
        /// The input is lost; the pipeline reconnects and playlists keep advancing (slate or
        /// GAP) unless the policy is `stale`.
        case inputLost = "input-lost"
        /// A mirror whose upstream is unreachable or stale: it serves what it holds as VOD
        /// (EXT-X-ENDLIST), and follows again (EVENT) when the upstream returns.
        case upstreamLost = "upstream-lost"
        /// EXT-X-ENDLIST written; the recording is complete and never changes again.
        case ended
        /// Deleted by the operator or by retention: gone for good.
        case removed
    }

    /// Everything the decision depends on, as plain values.
    public struct Facts: Sendable, Equatable {
        public var resource: Resource
        /// The names asked for, so every reason names what it refuses.
        public var streamName: String
        public var variantName: String?
        public var server: ServerCondition
        /// Nil when no such stream exists.
        public var stream: StreamPhase?
        /// For variant resources (media and I-frame playlists, segments): whether the stream
        /// has that variant. Ignored for the master playlist.
        public var variantExists: Bool
        /// Whether the playlist asked for has content (false before the first segment).
        public var playlistAvailable: Bool
        public var targetDuration: Int
        /// When the variant last published anything (a segment, a slate or a GAP entry); nil
        /// if it has not in this process.
        public var lastPublished: Seconds?
        /// When this process began serving: the stale clock never starts earlier, so a
        /// restart is not mistaken for a stuck stream.
        public var servingSince: Seconds
        public var now: Seconds

        public init(resource: Resource, streamName: String, variantName: String? = nil, server: ServerCondition = .serving, stream: StreamPhase?,
                    variantExists: Bool = true, playlistAvailable: Bool = true, targetDuration: Int, lastPublished: Seconds? = nil, servingSince: Seconds = 0,
                    now: Seconds) {
            self.resource = resource
            self.streamName = streamName
            self.variantName = variantName
            self.server = server
            self.stream = stream
            self.variantExists = variantExists
            self.playlistAvailable = playlistAvailable
            self.targetDuration = targetDuration
            self.lastPublished = lastPublished
            self.servingSince = servingSince
            self.now = now
        }
    }

    /// A monotonic time in seconds (`ContinuousClock` in the server, any number in tests).
    public typealias Seconds = Double

    public enum Verdict: Sendable, Equatable {
        /// Serve the resource, with this caching.
        case serve(CachePolicy)
        case refuse(Refusal)
    }

    /// The answer for any request, of any route, while the server is not simply serving.
    public func admit(_ server: ServerCondition) -> Refusal? {
        switch server {
        case .draining: Refusal(.draining, "server is shutting down", retryAfter: drainingRetryAfter)
        case .overloaded: Refusal(.overloaded, "server is busy", retryAfter: overloadedRetryAfter)
        case .serving: nil
        }
    }

    public func decide(_ facts: Facts) -> Verdict {
        if let refusal = admit(facts.server) { return .refuse(refusal) }
        // The live table's 410 leaves the name out: the URL already says it.
        if let refusal = Refusal.lookUp(stream: facts.streamName, phase: facts.stream, naming: false) { return .refuse(refusal) }
        guard let phase = facts.stream else { return .refuse(.noSuchStream(facts.streamName)) } // refused just above
        if facts.resource != .masterPlaylist && !facts.variantExists {
            return .refuse(.noSuchVariant(facts.variantName ?? "", of: facts.streamName))
        }
        switch facts.resource {
        case let .segment(state):
            switch state {
            case .listed: return .serve(.segment)
            // Apple: a GAP segment answers 404. It will never exist, so caches may keep the
            // answer for a target duration; that also makes a client that re-requests it 40
            // times a second cheap for any cache in front.
            case .gap: return .refuse(Refusal(.gapSegment, "segment is a gap (its encoder had failed)", cache: .gapSegment(maxAge: facts.targetDuration)))
            case .unlisted: return .refuse(Refusal(.segmentNotAvailable, "segment not available"))
            }
        case .masterPlaylist, .mediaPlaylist, .iFramePlaylist:
            guard facts.playlistAvailable else {
                return .refuse(Refusal(.starting, "stream is starting; no segment yet", retryAfter: max(1, facts.targetDuration)))
            }
            if phase == .ended { return .serve(.endedPlaylist) }
            // A mirror's VOD rendition does not advance, and is not stale: it is everything
            // there is while the upstream is away. Cached briefly, since it becomes EVENT
            // again when the upstream returns.
            if phase == .upstreamLost { return .serve(.livePlaylist(maxAge: max(0, facts.targetDuration / 2))) }
            if facts.resource != .masterPlaylist && isStale(facts) {
                return .refuse(Refusal(.stalePlaylist, "playlist is stale: nothing new for \(DecimalFormat.compact(staleAfter(targetDuration: facts.targetDuration))) s"))
            }
            return .serve(.livePlaylist(maxAge: max(0, facts.targetDuration / 2)))
        }
    }

    /// What a request whose path is not a resource of the origin gets: 404 for a path that
    /// names nothing, 400 for one that is malformed (a name with characters no stream has).
    public func refuse(_ rejection: OriginPath.Rejection) -> Refusal {
        switch rejection {
        case .notFound: Refusal(.noSuchResource, "no such resource")
        case let .malformed(why): .malformed(why)
        }
    }

    /// A resource the policy lets through but that has nothing to send: a bug, answered 500.
    public static let missingContent = Refusal(.internalError, "resource has no content")

    /// Seconds without a new entry after which a live media playlist is stale: 1.5 target
    /// durations past the latest moment the publisher may list its next entry.
    public func staleAfter(targetDuration: Int) -> Double {
        staleFactor * Double(targetDuration) + lateGrace
    }

    /// Whether a live media playlist has gone without a new entry for longer than the
    /// threshold, counting from this process's start at the earliest. Before this process has
    /// published anything, one more target duration is allowed: the first segment cannot
    /// exist before a whole segment of input has been read.
    public func isStale(_ facts: Facts) -> Bool {
        let threshold = staleAfter(targetDuration: facts.targetDuration)
        guard let published = facts.lastPublished, published >= facts.servingSince else {
            return facts.now - facts.servingSince > threshold + Double(facts.targetDuration)
        }
        return facts.now - published > threshold
    }
}
