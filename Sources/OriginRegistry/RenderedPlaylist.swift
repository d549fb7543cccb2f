import CompressNIO
import NIOCore

/// One version of a playlist, ready to send: its bytes, the same bytes gzip-compressed once
/// (Apple's HLS authoring specification asks for gzip on playlists; a synthetic 3-hour EVENT
/// playlist with a camera's dates shrinks 14.8 times at level 9, `scripts/bench/run playlist-gzip`), and an entity tag per
/// representation. Built when the playlist
/// changes, on the publisher's thread, never per request and never on an event loop.
///
/// A class, not a struct, for the reason `ServedMediaPlaylist` is one: each request takes it
/// out of the registry, and the struct's copy retained and released its four buffers and
/// strings. Immutable, so sharing it is safe.
public final class RenderedPlaylist: Sendable, Equatable {
    public let plain: ByteBuffer
    /// Nil when compressing failed (then only the plain bytes are offered) or did not pay.
    public let gzip: ByteBuffer?
    /// A strong tag, unique to this version: the registry's epoch (new each process) and a
    /// counter. The gzip representation's tag differs (RFC 9110 §8.8.3).
    public let etag: String
    /// Made once with the version (it is read on every gzip answer).
    public let gzipETag: String

    /// Playlists smaller than this go uncompressed: a gzip header and trailer cost 18 bytes.
    static let compressionThreshold = 256

    public convenience init(text: String, tag: String) {
        self.init(text: text, tag: tag, compressed: nil)
    }

    /// `compressed`: the text's gzip made already (`PrefixGzip`); nil compresses it here.
    init(text: String, tag: String, compressed: ByteBuffer?) {
        plain = ByteBuffer(string: text)
        etag = "\"\(tag)\""
        gzipETag = "\"\(tag)-gz\""
        if let compressed, plain.readableBytes >= Self.compressionThreshold {
            gzip = compressed.readableBytes < plain.readableBytes ? compressed : nil
        } else {
            gzip = Self.compress(plain)
        }
    }

    private static func compress(_ plain: ByteBuffer) -> ByteBuffer? {
        guard plain.readableBytes >= compressionThreshold else { return nil }
        var input = plain
        // Level 9: it keeps a 3-hour playlist's full reload under 30 KB where level 6 does not,
        // for a few milliseconds more once per version, never per request (Docs/benchmarks.md,
        // "Playlist compression", measured by `scripts/bench/run playlist-gzip`).
        guard let compressed = try? input.compress(with: .gzip(configuration: .init(compressionLevel: .bestCompression))),
              compressed.readableBytes < plain.readableBytes else { return nil }
        return compressed
    }

    public static func == (a: RenderedPlaylist, b: RenderedPlaylist) -> Bool { a === b || (a.etag == b.etag && a.plain == b.plain) }
}
