import NIOCore
import OriginState

extension StreamRegistry {
    /// A variant's media playlist as served (with EXT-X-SERVER-CONTROL while live), as text:
    /// what the tests and the operators' tools compare; requests are answered with the bytes.
    public func playlistText(stream: String, variant: String) -> String? {
        snapshot(of: stream)?.served.variants[variant]?.playlist.map { String(buffer: $0.full.plain) }
    }

    /// A variant's I-frame playlist as served, as text.
    public func iFramePlaylistText(stream: String, variant: String) -> String? {
        snapshot(of: stream)?.served.variants[variant]?.iFrames.map { String(buffer: $0.full.plain) }
    }

    /// The stream's master as served, as text.
    public func masterText(stream: String) -> String? {
        snapshot(of: stream)?.served.master.map { String(buffer: $0.plain) }
    }
}
