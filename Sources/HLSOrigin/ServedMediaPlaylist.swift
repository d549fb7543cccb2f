import HLSPlaylist

/// One version of a media (or I-frame) playlist, in every form the origin sends, rendered and
/// compressed once when the version is published, never per request:
/// - `full`: the playlist, with EXT-X-SERVER-CONTROL while it is live;
/// - `skip` and `skipDateRanges`: its delta updates for `_HLS_skip=YES` and `_HLS_skip=v2`
///   (nil until there is something to skip; the full form answers meanwhile).
public struct ServedMediaPlaylist: Sendable, Equatable {
    public let full: RenderedPlaylist
    public let skip: RenderedPlaylist?
    public let skipDateRanges: RenderedPlaylist?
    /// The media sequence number of the last entry; -1 while there is none.
    public let lastSequence: Int
    /// Ended (EXT-X-ENDLIST) or VOD: it never changes again, so nothing is held or skipped.
    public let complete: Bool
    /// The playlist itself, for the VOD renditions (`/vod/`), which are rendered on request.
    public let playlist: MediaPlaylist

    /// What the origin offers on live playlists (`server.delta_updates`, `server.blocking_reload`).
    public struct Offer: Sendable, Equatable {
        public var deltaUpdates: Bool
        public var blockingReload: Bool
        public init(deltaUpdates: Bool = true, blockingReload: Bool = true) {
            self.deltaUpdates = deltaUpdates
            self.blockingReload = blockingReload
        }

        /// The EXT-X-SERVER-CONTROL a live playlist with this target duration carries.
        public func control(targetDuration: Int) -> ServerControl {
            ServerControl(canSkipUntil: deltaUpdates ? ServerControl.minimumSkipBoundary(targetDuration: targetDuration) : nil,
                          canSkipDateRanges: deltaUpdates, canBlockReload: blockingReload)
        }
    }

    /// Renders every form of `live`'s current version; `tag` is the version's entity tag.
    init(_ live: LiveMediaPlaylist, offer: Offer, tag: String) {
        let playlist = live.playlist
        self.playlist = playlist
        complete = playlist.endList || playlist.playlistType == .vod
        lastSequence = playlist.mediaSequence + playlist.segments.count - 1
        let control = complete ? ServerControl() : offer.control(targetDuration: playlist.targetDuration)
        full = RenderedPlaylist(text: live.text(control: control), tag: tag)
        skip = playlist.renderDelta(control: control, skippingDateRanges: false).map { RenderedPlaylist(text: $0, tag: tag + "-s1") }
        skipDateRanges = playlist.renderDelta(control: control, skippingDateRanges: true).map { RenderedPlaylist(text: $0, tag: tag + "-s2") }
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
