import OriginPolicy
import OriginRegistry

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
