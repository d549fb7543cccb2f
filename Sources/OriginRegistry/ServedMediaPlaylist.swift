import HLSPlaylist
import NIOCore
import OriginPolicy

/// One version of a media (or I-frame) playlist, in every form the origin sends, rendered and
/// compressed once when the version is published, never per request:
/// - `full`: the playlist, with EXT-X-SERVER-CONTROL while it is live;
/// - `skip` and `skipDateRanges`: its delta updates for `_HLS_skip=YES` and `_HLS_skip=v2`
///   (nil until there is something to skip; the full form answers meanwhile).
///
/// A class, not a struct: every playlist request takes it out of the registry, and a copy of
/// the struct retained and released each of its dozen buffers and strings (Docs/benchmarks.md,
/// "Issue 33: the bound on unsent bytes"). Immutable, so sharing it is safe.
public final class ServedMediaPlaylist: Sendable, Equatable {
    public let full: RenderedPlaylist
    public let skip: RenderedPlaylist?
    public let skipDateRanges: RenderedPlaylist?
    /// The media sequence number of the last entry; -1 while there is none.
    public let lastSequence: Int
    /// How far this version has got, parts included (Low-Latency HLS), as blocking reload weighs it.
    public let edge: PublishedEdge
    /// Ended (EXT-X-ENDLIST) or VOD: it never changes again, so nothing is held or skipped.
    public let complete: Bool
    /// The playlist as recorded, without markers, for the VOD renditions (`/vod/`, which place
    /// the markers by time) and for rendering again when the markers change.
    public let playlist: MediaPlaylist

    /// What the origin offers on live playlists (`server.delta_updates`, `server.blocking_reload`).
    public struct Offer: Sendable, Equatable {
        public var deltaUpdates: Bool
        public var blockingReload: Bool
        public init(deltaUpdates: Bool = true, blockingReload: Bool = true) {
            self.deltaUpdates = deltaUpdates
            self.blockingReload = blockingReload
        }

        /// The EXT-X-SERVER-CONTROL a live playlist with this target duration carries; with
        /// parts of `partTarget` seconds (Low-Latency HLS), PART-HOLD-BACK too: three part
        /// targets, the least the draft recommends, where players start closest to the edge.
        /// Blocking reload is always offered with parts: the draft requires it.
        public func control(targetDuration: Int, partTarget: Double? = nil) -> ServerControl {
            ServerControl(canSkipUntil: deltaUpdates ? ServerControl.minimumSkipBoundary(targetDuration: targetDuration) : nil,
                          canSkipDateRanges: deltaUpdates, canBlockReload: blockingReload || partTarget != nil,
                          partHoldBack: partTarget.map { 3 * $0 })
        }
    }

    /// Renders every form of `live`'s current version with `markers` placed in it (`placingLive`);
    /// `tag` is the version's entity tag. Without markers the live playlist's incrementally
    /// kept text is used; with them the playlist is rendered whole, once per version, which at
    /// hour 3 costs more than the incremental text and less than the gzip that follows
    /// (Docs/benchmarks.md, "Playlist rendering with markers"). That is one version per segment
    /// per variant, never per request.
    ///
    /// `edge`: the variant's Low-Latency HLS edge (parts, hint, rendition reports), rendered in
    /// every form while the playlist is live; nil where the stream lists no parts. With an
    /// edge, a version a part makes differs from the one before only after the last entry:
    /// `kept`, the text up to there and its gzip from an earlier version, is used again when
    /// it is the same (`KeptPrefix.Key`), so a part's version renders and compresses only its
    /// tail (`PrefixGzip`). `prefix` is what the next version may use.
    convenience init(_ live: LiveMediaPlaylist, markers: [Marker] = [], offer: Offer, tag: String, edge: LowLatencyEdge? = nil, kept: KeptPrefix? = nil) {
        let raw = live.playlist
        let complete = raw.endList || raw.playlistType == .vod
        let edge = complete ? nil : edge
        let control = complete ? ServerControl() : offer.control(targetDuration: raw.targetDuration, partTarget: edge?.partTarget)
        let placed = markers.isEmpty ? raw : raw.placingLive(markers)
        guard let edge else {
            self.init(raw: raw, placed: placed, text: markers.isEmpty ? live.text(control: control) : placed.render(control: control), control: control, tag: tag,
                      edge: nil, prefix: nil, compressed: nil)
            return
        }
        let key = KeptPrefix.Key(version: live.version, entries: raw.segments.count, mediaSequence: raw.mediaSequence, markers: markers,
                                 listedParts: edge.listedParts, control: control)
        let prefix: KeptPrefix
        if let kept, kept.key == key {
            prefix = kept
        } else {
            // Everything up to and including the last entry: the edge without its tail.
            var entriesOnly = edge
            entriesOnly.openParts = []
            entriesOnly.hint = nil
            entriesOnly.reports = []
            let text = markers.isEmpty ? live.text(control: control, edge: entriesOnly) : placed.render(control: control, edge: entriesOnly)
            prefix = KeptPrefix(key: key, text: text, gzip: PrefixGzip(text))
        }
        let tail = edge.tail()
        self.init(raw: raw, placed: placed, text: prefix.text + tail, control: control, tag: tag, edge: edge, prefix: prefix,
                  compressed: prefix.gzip?.member(tail: tail))
    }

    /// The text of a live playlist with parts up to and including its last entry, and its gzip
    /// prefix, kept from one version to the next while they are the same.
    public struct KeptPrefix: Sendable {
        /// What the text is made from: the recording's version, the markers, the parts listed
        /// under entries and the server control line.
        struct Key: Sendable, Equatable {
            let version: Int
            let entries: Int
            let mediaSequence: Int
            let markers: [Marker]
            let listedParts: [Int: [PartialSegment]]
            let control: ServerControl
        }

        let key: Key
        let text: String
        let gzip: PrefixGzip?
    }

    /// What the next version of the same variant may use (nil without parts).
    public let prefix: KeptPrefix?

    private init(raw: MediaPlaylist, placed: MediaPlaylist, text: String, control: ServerControl, tag: String, edge: LowLatencyEdge?,
                 prefix: KeptPrefix?, compressed: ByteBuffer?) {
        playlist = raw
        self.prefix = prefix
        complete = raw.endList || raw.playlistType == .vod
        lastSequence = raw.lastSequence
        self.edge = PublishedEdge(lastSequence: raw.lastSequence, partsOfNext: edge?.openParts.count ?? 0, partsPerSegment: edge?.partsPerSegment,
                                  partTarget: edge?.partTarget)
        full = RenderedPlaylist(text: text, tag: tag, compressed: compressed)
        skip = placed.renderDelta(control: control, skippingDateRanges: false, edge: edge).map { RenderedPlaylist(text: $0, tag: tag + "-s1") }
        skipDateRanges = placed.renderDelta(control: control, skippingDateRanges: true, edge: edge).map { RenderedPlaylist(text: $0, tag: tag + "-s2") }
    }

    public static func == (a: ServedMediaPlaylist, b: ServedMediaPlaylist) -> Bool {
        a === b || (a.full == b.full && a.skip == b.skip && a.skipDateRanges == b.skipDateRanges && a.lastSequence == b.lastSequence
            && a.complete == b.complete && a.playlist == b.playlist && a.edge == b.edge)
    }

    /// The form a request's `_HLS_skip` asks for; the full one when there is no delta yet.
    public func form(for skip: PlaylistDirectives.Skip?) -> RenderedPlaylist {
        switch skip {
        case nil: full
        case .segments: self.skip ?? full
        case .segmentsAndDateRanges: skipDateRanges ?? full
        }
    }
}

extension BlockingReload {
    /// The decision for a served playlist version.
    public static func decide(_ directives: PlaylistDirectives, playlist: ServedMediaPlaylist, targetDuration: Int, offered: Bool) -> BlockingReload {
        decide(directives, edge: playlist.edge, complete: playlist.complete, targetDuration: targetDuration, offered: offered || playlist.edge.partsPerSegment != nil)
    }
}
