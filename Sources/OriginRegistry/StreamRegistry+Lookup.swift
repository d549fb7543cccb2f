import OriginPolicy
import OriginState
import Synchronization

extension StreamRegistry {
    /// What one request for a stream's resource needs to be decided and answered, read under
    /// the lock: the facts `StatusPolicy` weighs and the one rendering or file it may send.
    ///
    /// Why not `snapshot(of:)`: a snapshot copies the whole stream and what was rendered of it
    /// (every field retained, then released), on every playlist and segment request; copies and
    /// their destruction were about 5% of a playlist request's CPU samples (Docs/benchmarks.md,
    /// "Issue 33: the bound on unsent bytes").
    public struct ResourceLookup: Sendable {
        public let phase: Phase
        public let targetDuration: Int
        /// Live until ended or removed: CMSD's stream type.
        public let isLive: Bool
        /// Whether the stream has the variant the path names (false when it names none).
        public let variantExists: Bool
        /// When the variant last published (`VariantStatus.lastPublished`).
        public let lastPublished: Double?
        /// The master as served (the limited one for a viewer limited to one variant); nil for
        /// other resources, before the first master, and for a limit no variant has.
        public let master: RenderedPlaylist?
        /// The variant names, best first: only when a limited master was asked for and the
        /// limit names no variant (what the refusal lists); empty otherwise.
        public let variantOrder: [String]
        /// The media or I-frame playlist as served, for those resources.
        public let media: ServedMediaPlaylist?
        /// The listed file of a segment request.
        public let file: SegmentFile?
        /// Whether a segment request names an entry the playlist lists as EXT-X-GAP.
        public let gap: Bool
    }

    /// The lookup of `resource` (a parsed `/live/` path); nil when no stream has its name.
    /// `variantLimit`: the variant a viewer's credential is limited to (a master request then
    /// gets that variant's master).
    public func lookUp(_ resource: OriginPath, variantLimit: String?) -> ResourceLookup? {
        published.withLock { p -> ResourceLookup? in
            guard let stream = p.state.streams[resource.stream] else { return nil }
            let variant = resource.variant.flatMap { stream.variants[$0] }
            var master: RenderedPlaylist?
            var order: [String] = []
            var media: ServedMediaPlaylist?
            var file: SegmentFile?
            var gap = false
            switch resource {
            case .master:
                if let variantLimit {
                    master = p.served[resource.stream]?.limitedMasters[variantLimit]
                    if master == nil { order = stream.variantOrder }
                } else {
                    master = p.served[resource.stream]?.master
                }
            case let .mediaPlaylist(_, name):
                media = p.served[resource.stream]?.variants[name]?.playlist
            case let .iFramePlaylist(_, name):
                media = p.served[resource.stream]?.variants[name]?.iFrames
            case let .segment(_, _, name):
                file = variant?.segments[name]
                gap = file == nil && variant?.gaps.contains(name) == true
            case .part:
                // No stream lists parts yet (issue 34): a part is answered as a segment that is
                // not listed.
                break
            }
            return ResourceLookup(phase: stream.phase, targetDuration: stream.targetDuration, isLive: stream.isLive, variantExists: variant != nil,
                                  lastPublished: variant?.status.lastPublished, master: master, variantOrder: order, media: media, file: file, gap: gap)
        }
    }
}
