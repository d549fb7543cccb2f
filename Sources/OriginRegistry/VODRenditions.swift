import Synchronization

/// Playlists made on request (VOD renditions, a set's master) as sent, each rendered and
/// gzip-compressed once for the versions and window it was made from (its entity tag says
/// them), so a crowd downloading the match, or a player re-reading its playlist, costs one
/// rendering. Bounded: emptied when full.
public final class VODRenditions: Sendable {
    static let capacity = 64
    private let kept = Mutex<[String: RenderedPlaylist]>([:])

    public init() {}

    /// The rendition made for `tag`, if it is kept.
    public func made(tag: String) -> RenderedPlaylist? { kept.withLock { $0[tag] } }

    public func rendered(tag: String, text: () -> String) -> RenderedPlaylist {
        if let hit = made(tag: tag) { return hit }
        let rendered = RenderedPlaylist(text: text(), tag: tag)
        kept.withLock { kept in
            if kept.count >= Self.capacity { kept.removeAll() }
            kept[tag] = rendered
        }
        return rendered
    }

    public var count: Int { kept.withLock { $0.count } }
}
