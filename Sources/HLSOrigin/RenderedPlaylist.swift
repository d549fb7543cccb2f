import CompressNIO
import NIOCore

/// One version of a playlist, ready to send: its bytes, the same bytes gzip-compressed once
/// (Apple's HLS authoring specification asks for gzip on playlists; a synthetic 3-hour EVENT
/// playlist with a camera's dates shrinks 14.8 times at level 9, `scripts/playlist-gzip.sh`), and an entity tag per
/// representation. Built when the playlist
/// changes, on the publisher's thread, never per request and never on an event loop.
public struct RenderedPlaylist: Sendable, Equatable {
    public let plain: ByteBuffer
    /// Nil when compressing failed (then only the plain bytes are offered) or did not pay.
    public let gzip: ByteBuffer?
    /// A strong tag, unique to this version: the registry's epoch (new each process) and a
    /// counter. The gzip representation's tag differs (RFC 9110 §8.8.3).
    public let etag: String
    public var gzipETag: String { String(etag.dropLast()) + "-gz\"" }

    /// Playlists smaller than this go uncompressed: a gzip header and trailer cost 18 bytes.
    static let compressionThreshold = 256

    init(text: String, tag: String) {
        plain = ByteBuffer(string: text)
        etag = "\"\(tag)\""
        gzip = Self.compress(plain)
    }

    private static func compress(_ plain: ByteBuffer) -> ByteBuffer? {
        guard plain.readableBytes >= compressionThreshold else { return nil }
        var input = plain
        // Level 9: a 3-hour playlist with a camera's dates is 28.5 KB at level 9 and 31.8 KB at
        // level 6 (`scripts/playlist-gzip.sh`), and a full reload must stay under 30 KB. It
        // costs about 10 ms instead of 3, once per version (every 2 s), never per request.
        guard let compressed = try? input.compress(with: .gzip(configuration: .init(compressionLevel: .bestCompression))),
              compressed.readableBytes < plain.readableBytes else { return nil }
        return compressed
    }

    public static func == (a: RenderedPlaylist, b: RenderedPlaylist) -> Bool { a.etag == b.etag && a.plain == b.plain }
}

/// How a playlist request is answered, from its `Accept-Encoding` and `If-None-Match`: which
/// representation, and whether the client's copy is current (304). Pure.
public struct PlaylistNegotiation: Sendable, Equatable {
    public let gzip: Bool
    public let notModified: Bool
    public let etag: String

    public init(_ playlist: RenderedPlaylist, acceptEncoding: String?, ifNoneMatch: String?) {
        let gzip = playlist.gzip != nil && Self.acceptsGzip(acceptEncoding)
        let etag = gzip ? playlist.gzipETag : playlist.etag
        self.gzip = gzip
        self.etag = etag
        notModified = ifNoneMatch.map { Self.matches($0, etag) } ?? false
    }

    /// `gzip` (or `x-gzip`, or `*`) with a quality above 0 (RFC 9110 §12.5.3).
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, ["gzip", "x-gzip", "*"].contains(coding) else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if quality > 0 { return true }
        }
        return false
    }

    /// If-None-Match uses the weak comparison (RFC 9110 §13.1.2): a `W/` prefix on the
    /// client's tag is ignored (Sideline's own tags are strong).
    static func matches(_ header: String, _ etag: String) -> Bool {
        if header.trimmingCharacters(in: .whitespaces) == "*" { return true }
        return header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == etag
        }
    }
}
