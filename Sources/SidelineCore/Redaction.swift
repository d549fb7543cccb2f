import Foundation

/// What a log line or an error message shows of a credential: that there was one, never the
/// credential. The one place that decides what counts as secret, used by the request log
/// (`server.log_headers` and the path), config errors, the mirror and push.
///
/// In SidelineCore because every module that writes such a line imports it (the config, the
/// origin, the mirror, push) and it is pure text in, text out.
///
/// Secret: the values of credential headers (`Authorization`, `Proxy-Authorization`, `Cookie`,
/// `Set-Cookie`, and any header whose name says token, key, secret, password or signature);
/// the path segment after `/access/` (a viewer credential or signed URL); query values whose
/// name says token, key, sig(nature), secret, password, auth or credential (`?token=`,
/// CDN-style `?sig=`, S3's `X-Amz-Signature`); the password of a URL's user info; config
/// values under keys named like that (`admin.token`, `access.signing_key`).
public enum Redaction {
    /// What stands where a secret was.
    public static let mark = "<redacted>"

    /// Words that make a header, query parameter or config key name a secret one.
    static let secretWords = ["token", "key", "sig", "secret", "password", "passwd", "auth", "credential", "cookie", "session"]

    /// Whether a header, query parameter or config key of this name carries a secret.
    public static func isSecretName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        // A player's session ID (CMCD-Session, X-Playback-Session-Id) is not a credential, and
        // is what `server.log_headers` is for.
        if lowered.hasSuffix("session-id") || lowered == "cmcd-session" { return false }
        return secretWords.contains { lowered.contains($0) }
    }

    /// A header's value as a log may show it: a credential header keeps its scheme
    /// (`Bearer <redacted>`), so the log still tells which kind was sent.
    public static func header(name: String, value: String) -> String {
        guard isSecretName(name) else { return value }
        let trimmed = value.drop { $0 == " " }
        if let space = trimmed.firstIndex(of: " "), name.lowercased().hasSuffix("authorization") {
            return "\(trimmed[..<space]) \(mark)"
        }
        return mark
    }

    /// A `Name: value` header line (the mirror's and push's `--header`), redacted as `header`.
    public static func headerLine(_ line: String) -> String {
        guard let colon = line.firstIndex(of: ":") else { return isSecretName(line) ? mark : line }
        let name = String(line[..<colon])
        return name + ": " + header(name: name.trimmed(" "), value: String(line[line.index(after: colon)...]).trimmed(" "))
    }

    /// A request target (`/path?query`) or a whole URL (`https://user:pass@host/path?query`),
    /// with every credential in it replaced by `mark`.
    public static func url(_ text: String) -> String {
        var rest = Substring(text)
        var out = ""
        // scheme://[userinfo@]authority: the password of the user info goes.
        if let schemeEnd = rest.range(of: "://") {
            out += rest[..<schemeEnd.upperBound]
            rest = rest[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@") {
                let user = authority[..<at]
                out += (user.firstIndex(of: ":").map { user[..<$0] + ":" + mark } ?? user) + "@"
                out += authority[authority.index(after: at)...]
            } else {
                out += authority
            }
            rest = rest[authorityEnd...]
        }
        let queryStart = rest.firstIndex { $0 == "?" || $0 == "#" } ?? rest.endIndex
        out += path(rest[..<queryStart])
        var tail = rest[queryStart...]
        guard tail.first == "?" else { return out + tail }
        out += "?"
        tail = tail.dropFirst()
        let fragmentStart = tail.firstIndex(of: "#") ?? tail.endIndex
        out += tail[..<fragmentStart].split(separator: "&", omittingEmptySubsequences: false).map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<equals]
            return isSecretName(percentDecoded(name)) ? name + "=" + mark : String(pair)
        }.joined(separator: "&")
        return out + tail[fragmentStart...]
    }

    /// The path with the segment after each `access` segment (however it is spelled:
    /// `%61ccess` decodes the same) replaced.
    static func path(_ path: Substring) -> String {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var index = 0
        while index + 1 < segments.count {
            if isAccessSegment(Substring(segments[index])) {
                segments[index + 1] = mark
                index += 2
            } else {
                index += 1
            }
        }
        return segments.joined(separator: "/")
    }

    /// Whether a path segment is `access` (the prefix of a URL that carries a credential),
    /// however it is spelled: `%61ccess` and `ACCESS` are the same to the gate's normalisation.
    public static func isAccessSegment(_ segment: Substring) -> Bool {
        isAccessSegment(bytes: segment.utf8)
    }

    /// The same over a segment's bytes, making no string: `offersCredential` asks it of every
    /// path segment of every request, for the credential throttle, whose handler cost about
    /// 5 µs a request in the serving benchmark (Docs/benchmarks.md, "Serving"); two new
    /// strings per segment were most of its per-request work. This version's saving is not
    /// measured yet.
    /// "access" is ASCII, so `%XX` decoding and ASCII case folding byte by byte decide it.
    static func isAccessSegment<Bytes: Collection<UInt8>>(bytes segment: Bytes) -> Bool {
        // Every letter of "access" as %XX is 18 bytes; anything longer cannot decode to it.
        guard segment.count <= 18 else { return false }
        var matched = 0
        var index = segment.startIndex
        while index != segment.endIndex {
            var byte = segment[index]
            segment.formIndex(after: &index)
            if byte == UInt8(ascii: "%") {
                // Undecodable `%` stays a `%`, which "access" does not contain.
                guard index != segment.endIndex, let high = hexValue(segment[index]) else { return false }
                segment.formIndex(after: &index)
                guard index != segment.endIndex, let low = hexValue(segment[index]) else { return false }
                segment.formIndex(after: &index)
                byte = high << 4 | low
            }
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
            guard matched < accessBytes.count, byte == accessBytes[matched] else { return false }
            matched += 1
        }
        return matched == accessBytes.count
    }

    private static let accessBytes = Array("access".utf8)

    /// Whether a request offers a credential: an `Authorization` header, or an `access`
    /// segment in its path (`/access/<credential>/...`, `/./access/...`, `/%61ccess/...`).
    /// Byte by byte, the path ending at the first `?` or `#`: it runs on every request.
    public static func offersCredential(target: String, authorization: String?) -> Bool {
        if authorization != nil { return true }
        let bytes = target.utf8
        var start = bytes.startIndex
        var index = start
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "/") {
                if isAccessSegment(bytes: bytes[start..<index]) { return true }
                start = bytes.index(after: index)
            }
            bytes.formIndex(after: &index)
        }
        return isAccessSegment(bytes: bytes[start..<index])
    }

    /// A config value as an error message may echo it: `mark` under a secret key
    /// (`admin.token`, `streams[0].viewer_token`, `access.signing_key`).
    public static func configValue(key: String, value: String) -> String {
        let last = key.split(separator: ".").last.map(String.init) ?? key
        return isSecretName(last) ? mark : value
    }

    /// `%XX` decoded where it is valid; anything else kept as it is. For recognising names only.
    static func percentDecoded(_ text: Substring) -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
               let high = hexValue(iterator[iterator.startIndex]), let low = hexValue(iterator[iterator.startIndex + 1]) {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension String {
    /// Without `character` at either end.
    fileprivate func trimmed(_ character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
