/// The one normalisation of a request's path: every spelling of a file becomes the same
/// canonical path before anything decides about it, so the access gate, the routes, the edge's
/// question to `/api/access` and the edge's cache key all see one name for one file.
///
/// The steps (RFC 3986 §6.2.2, with the origin's own choices where it leaves room):
/// - the path is split at each literal `/`; repeated slashes make empty components, which go;
/// - each component is percent-decoded once, and a slash or backslash it then holds (`%2F`,
///   `%5C`, a raw `\\`) separates components as a `/` does. RFC 3986 §2.2 says an encoded
///   reserved character is not the character, but proxies differ (nginx's `$uri` decodes `%2F`
///   into a separator; a Windows proxy reads `\\` as one), so the origin takes the reading that
///   names a file, and `main%2F180p` is the private `main/180p`, judged and served as it
///   (issue 33: `/api/access` passed it as a stream of no name while a decoding proxy read the
///   private file);
/// - `.` components go, `..` takes the component before it away; a `..` with nothing before
///   it (above the root) is refused, as nginx refuses it, rather than quietly dropped;
/// - control characters (NUL included), raw or decoded, broken escapes, a path not starting
///   with `/` and a path over `maximumLength` bytes are refused (400, never stored by a cache);
/// - each component is encoded again in one way: RFC 3986 `pchar` characters as they are,
///   every other byte as `%XX` in capitals. So `/%6Cive/` is `/live/`, and `%2f` is `%2F`.
///
/// The query is kept exactly as sent: its parameters are read by their own parsers, and a cache
/// keys on it as it is. The origin serves every spelling as the canonical file (it rewrites the
/// request to the canonical path before the gate and the routes see it): players that resolve
/// relative URLs sloppily still play, and there is no second answer an edge could store.
public struct RequestTarget: Equatable, Sendable {
    /// The canonical path: `/` and the canonical components, with a trailing `/` when the path
    /// named a directory (it ended in `/`, `/.` or `/..`).
    public let path: String
    /// The query as sent, without its `?`; nil when there is no `?`.
    public let query: String?

    /// The longest path taken. nginx's default request line buffer is 8 KiB, players' paths are
    /// under 200 bytes; a bound keeps the work per request small.
    public static let maximumLength = 4096

    /// Path and query, as a request target.
    public var target: String { query.map { path + "?" + $0 } ?? path }

    public init(path: String, query: String?) {
        self.path = path
        self.query = query
    }

    /// The canonical form of `raw` (a request target as sent: path and optional query), or the
    /// refusal every spelling that cannot be normalised gets.
    public static func normalise(_ raw: String) -> Result<RequestTarget, Refusal> {
        var raw = raw
        return raw.withUTF8 { normalise($0) }
    }

    public static func normalise(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<RequestTarget, Refusal> {
        let queryStart = bytes.firstIndex(of: UInt8(ascii: "?"))
        let pathBytes = UnsafeBufferPointer(rebasing: bytes[..<(queryStart ?? bytes.count)])
        let query = queryStart.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[($0 + 1)...]), as: UTF8.self) }
        guard pathBytes.count <= maximumLength else {
            return .failure(refusal("the path is longer than \(maximumLength) bytes"))
        }
        guard pathBytes.first == UInt8(ascii: "/") else {
            return .failure(refusal("a request target must be a path that starts with '/'"))
        }
        if isCanonical(pathBytes) {
            return .success(RequestTarget(path: String(decoding: pathBytes, as: UTF8.self), query: query))
        }
        var components: [[UInt8]] = []
        var directory = false
        var start = 1
        while start <= pathBytes.count {
            let end = pathBytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? pathBytes.count
            let decoded: [UInt8]
            switch decode(UnsafeBufferPointer(rebasing: pathBytes[start..<end])) {
            case let .success(bytes): decoded = bytes
            case let .failure(refusal): return .failure(refusal)
            }
            let last = end == pathBytes.count
            // A slash or backslash the component decoded to separates as `/` does.
            let pieces = decoded.split(omittingEmptySubsequences: false) { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }
            for (index, piece) in pieces.enumerated() {
                let lastPiece = last && index == pieces.count - 1
                switch Array(piece) {
                case []:
                    directory = lastPiece
                case [UInt8(ascii: ".")]:
                    directory = lastPiece
                case [UInt8(ascii: "."), UInt8(ascii: ".")]:
                    guard components.popLast() != nil else {
                        return .failure(refusal("the path climbs above the root with '..'"))
                    }
                    directory = lastPiece
                default:
                    components.append(Array(piece))
                    directory = false
                }
            }
            start = end + 1
        }
        var path = ""
        for component in components {
            path += "/"
            encode(component, into: &path)
        }
        if path.isEmpty || directory { path += "/" }
        // Raw bytes outside `pchar` grow threefold when encoded: the canonical form is held to
        // the same bound, so it normalises to itself (found by the request-target fuzz target).
        guard path.utf8.count <= maximumLength else {
            return .failure(refusal("the path is longer than \(maximumLength) bytes once its bytes are percent-encoded"))
        }
        return .success(RequestTarget(path: path, query: query))
    }

    /// The path of `raw` as sent, with every byte that is not printable ASCII percent-encoded:
    /// the same request (the normalisation decodes a byte and its escape alike), in a form
    /// that fits a header. For a target that cannot be normalised, so an edge can still ask the
    /// origin for it and pass its 400 on.
    public static func pathAsSent(_ raw: String) -> String {
        var encoded: [UInt8] = []
        for c in raw.utf8.prefix(while: { $0 != UInt8(ascii: "?") }).prefix(maximumLength + 1) {
            if c > 0x20 && c < 0x7F {
                encoded.append(c)
            } else {
                encoded += [UInt8(ascii: "%"), hexDigits[Int(c >> 4)], hexDigits[Int(c & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// Whether `raw` (path and optional query, as sent) is already canonical: what `normalise`
    /// would give back unchanged, decided without building a string (the common case on every
    /// request's path). False for anything `normalise` would change or refuse, and for a path
    /// with an escape in it (canonical or not: such a path takes `normalise`).
    public static func isCanonicalTarget(_ raw: String) -> Bool {
        var raw = raw
        return raw.withUTF8 { bytes in
            let pathEnd = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
            guard pathEnd > 0, pathEnd <= maximumLength, bytes[0] == UInt8(ascii: "/") else { return false }
            return isCanonical(UnsafeBufferPointer(rebasing: bytes[..<pathEnd]))
        }
    }

    /// Nearly every request: only `pchar` bytes, no escape, no empty, `.` or `..` component.
    /// Such a path is its own canonical form, and is taken without a copy of its components.
    static func isCanonical(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        var componentStart = 0
        for index in 0...path.count {
            if index == path.count || path[index] == UInt8(ascii: "/") {
                let length = index - componentStart
                if index > 0 {
                    // An empty component is only allowed as the final one ("/" or "/live/").
                    if length == 0 && index != path.count { return false }
                    if length == 1 && path[componentStart] == UInt8(ascii: ".") { return false }
                    if length == 2 && path[componentStart] == UInt8(ascii: ".") && path[componentStart + 1] == UInt8(ascii: ".") { return false }
                }
                componentStart = index + 1
            } else if !isPathCharacter(path[index]) {
                return false
            }
        }
        return true
    }

    /// RFC 3986 `pchar` without `%`: unreserved, sub-delims, `:` and `@`.
    static func isPathCharacter(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"): true
        default: false
        }
    }

    private static func decode(_ component: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], Refusal> {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(component.count)
        var index = 0
        while index < component.count {
            var c = component[index]
            if c == UInt8(ascii: "%") {
                guard index + 2 < component.count, let hi = OriginPath.hexValue(component[index + 1]), let lo = OriginPath.hexValue(component[index + 2]) else {
                    return .failure(refusal("bad percent-encoding in the path"))
                }
                c = hi << 4 | lo
                index += 3
            } else {
                index += 1
            }
            guard c >= 0x20, c != 0x7F else { return .failure(refusal("control character in the path")) }
            bytes.append(c)
        }
        return .success(bytes)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func encode(_ component: [UInt8], into path: inout String) {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(component.count)
        for c in component {
            if isPathCharacter(c) {
                encoded.append(c)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(hexDigits[Int(c >> 4)])
                encoded.append(hexDigits[Int(c & 0x0F)])
            }
        }
        path += String(decoding: encoded, as: UTF8.self)
    }

    /// A path that cannot be normalised: the same 400 for every route, never stored by a cache
    /// (another spelling must not be answered with it).
    static func refusal(_ reason: String) -> Refusal {
        Refusal(.malformedRequest, reason, cache: .noStore)
    }
}
