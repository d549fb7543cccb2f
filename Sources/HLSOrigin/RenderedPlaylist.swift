import CompressNIO
import NIOCore
import OriginPolicy

/// One version of a playlist, ready to send: its bytes, the same bytes gzip-compressed once
/// (Apple's HLS authoring specification asks for gzip on playlists; a synthetic 3-hour EVENT
/// playlist with a camera's dates shrinks 14.8 times at level 9, `scripts/bench/run playlist-gzip`), and an entity tag per
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
        // Level 9: it keeps a 3-hour playlist's full reload under 30 KB where level 6 does not,
        // for a few milliseconds more once per version, never per request (Docs/benchmarks.md,
        // "Playlist compression", measured by `scripts/bench/run playlist-gzip`).
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
        let value = Substring(header).utf8
        for item in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
            let semicolon = item.firstIndex(of: UInt8(ascii: ";")) ?? item.endIndex
            let coding = HeaderTokens.trimmed(item[item.startIndex..<semicolon])
            guard HeaderTokens.equalsIgnoringCase(coding, "gzip") || HeaderTokens.equalsIgnoringCase(coding, "x-gzip")
                || HeaderTokens.equalsIgnoringCase(coding, "*") else { continue }
            var quality = 1.0
            for parameter in item[semicolon...].split(separator: UInt8(ascii: ";")) {
                let trimmed = HeaderTokens.trimmed(parameter)
                if HeaderTokens.hasPrefixIgnoringCase(trimmed, "q=") {
                    quality = Double(String(Substring(trimmed.dropFirst(2)))) ?? 1
                }
            }
            if quality > 0 { return true }
        }
        return false
    }

    /// If-None-Match uses the weak comparison (RFC 9110 §13.1.2): a `W/` prefix on the
    /// client's tag is ignored (Sideline's own tags are strong).
    static func matches(_ header: String, _ etag: String) -> Bool {
        let value = Substring(header).utf8
        if HeaderTokens.equalsIgnoringCase(HeaderTokens.trimmed(value), "*") { return true }
        let wanted = Substring(etag).utf8
        return value.split(separator: UInt8(ascii: ",")).contains { candidate in
            var tag = HeaderTokens.trimmed(candidate)
            if tag.starts(with: "W/".utf8) { tag = tag.dropFirst(2) }
            return tag.elementsEqual(wanted)
        }
    }
}
