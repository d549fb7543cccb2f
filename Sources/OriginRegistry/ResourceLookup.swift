import HLSPlaylist
import NIOCore
import OriginPolicy
import OriginState
import Synchronization

/// What one request for a stream's resource needs to be decided and answered, read under the
/// registry's lock: the facts `StatusPolicy` weighs and the one rendering or file it may send.
///
/// Why not `snapshot(of:)`: a snapshot copies the whole stream and what was rendered of it
/// (every field retained, then released), on every playlist and segment request; copies and
/// their destruction were about 5% of a playlist request's CPU samples (Docs/benchmarks.md,
/// "Issue 33: the bound on unsent bytes").
public struct ResourceLookup: Sendable {
    public let phase: StreamRegistry.Phase
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
    public internal(set) var file: StreamRegistry.SegmentFile?
    /// Whether a segment request names an entry the playlist lists as EXT-X-GAP.
    public let gap: Bool
    /// A part request (Low-Latency HLS): the part's bytes while its segment is being made;
    /// once the segment is listed, `file` with the part's `partRange` of it.
    /// The steering manifest (`OriginPath.steering`), nil on a box with no pair.
    public var steering: (manifest: ByteBuffer, timeToLive: Int)? = nil
    public var partBytes: ByteBuffer? = nil
    public var partRange: Range<Int>? = nil
    /// A part request for the part the playlist hints at (`EXT-X-PRELOAD-HINT`), not made
    /// yet: its segment's sequence number and index, what the request is held for.
    public var hinted: (sequence: Int, part: Int)? = nil
}

extension ResourceLookup {
    /// The lookup of `resource` (a parsed `/live/` path) in `registry`; nil when no stream has
    /// its name. `variantLimit`: the variant a viewer's credential is limited to (a master
    /// request then gets that variant's master).
    public static func find(_ resource: OriginPath, variantLimit: String?, in registry: StreamRegistry) -> ResourceLookup? {
        registry.published.withLock { p -> ResourceLookup? in
            guard let stream = p.state.streams[resource.stream] else { return nil }
            let variant = resource.variant.flatMap { stream.variants[$0] }
            var master: RenderedPlaylist?
            var order: [String] = []
            var media: ServedMediaPlaylist?
            var file: StreamRegistry.SegmentFile?
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
            case .part, .steering:
                break
            }
            var found = ResourceLookup(phase: stream.phase, targetDuration: stream.targetDuration, isLive: stream.isLive, variantExists: variant != nil,
                                       lastPublished: variant?.status.lastPublished, master: master, variantOrder: order, media: media, file: file, gap: gap)
            if case .steering = resource { found.steering = p.steeringManifest }
            if case let .part(_, name, segment, index) = resource, let variant {
                Self.locate(part: index, of: segment, in: variant, served: p.served[resource.stream]?.variants[name], into: &found)
            }
            return found
        }
    }

    /// Where part `index` of `segment` is: in memory, a range of its listed file, or the part
    /// the playlist hints at (held for), or nowhere (404).
    private static func locate(part index: Int, of segment: String, in variant: StreamRegistry.Variant, served: StreamRegistry.ServedVariant?, into found: inout ResourceLookup) {
        switch variant.parts.locate(segment: segment, index: index) {
        case let .open(sequence)?:
            found.partBytes = served?.openParts.first { $0.sequence == sequence && $0.index == index }?.bytes
            // Listed in the state, its bytes stored a moment later (`carry`): held, not a 404.
            if found.partBytes == nil { found.hinted = (sequence, index) }
        case let .file(name, range)?:
            found.file = variant.segments[name]
            found.partRange = found.file == nil ? nil : range
        case nil:
            guard let hint = variant.edge?.hint, let last = variant.recording?.lastSequence,
                  hint.uri == PartialSegment.recordedURI(segment: segment, index: index) else { return }
            // The hint is of the segment being made or, when all its parts are out, of the next.
            if let sequence = [last + 1, last + 2].first(where: { MediaSegment.recordedName(sequence: $0) == segment }) {
                found.hinted = (sequence, index)
            }
        }
    }
}
