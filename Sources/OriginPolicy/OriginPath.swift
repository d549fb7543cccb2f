import HLSPlaylist

/// The resources under `/live/`, parsed from the raw request path. Every component is
/// percent-decoded once and must then be a plain name (letters, digits, '-', '_', '.', not
/// starting with '.'), so no request can name a file outside the stream's directory: `..`,
/// `%2e%2e`, encoded slashes, absolute paths and NUL bytes are all refused here, before any
/// file is looked up.
public enum OriginPath: Equatable, Sendable {
    case master(stream: String)
    case mediaPlaylist(stream: String, variant: String)
    case iFramePlaylist(stream: String, variant: String)
    case segment(stream: String, variant: String, name: String)
    /// A part of a segment (Low-Latency HLS): `parts/<segment's name without .ts>.<index>.ts`
    /// under the variant. In a folder of its own so that no segment name, a pushed one
    /// included, can be a part's name.
    case part(stream: String, variant: String, segment: String, index: Int)
    /// The stream's Content Steering manifest (issue 35): `steering.json` beside its master.
    case steering(stream: String)

    /// The steering manifest's file name, beside the master (`steering.json`).
    public static let steeringName = "steering.json"

    /// The most parts a segment can have (a part index has at most three digits).
    public static let largestPartIndex = 999

    public enum Rejection: Error, Equatable, Sendable {
        /// Well formed, but no resource can have this path (404).
        case notFound
        /// Not a valid path at all: bad percent-encoding, control characters (400).
        case malformed(String)
    }

    public var stream: String {
        switch self {
        case let .master(s), let .mediaPlaylist(s, _), let .iFramePlaylist(s, _), let .segment(s, _, _), let .part(s, _, _, _), let .steering(s): s
        }
    }

    /// The variant a resource belongs to; nil for the master playlist.
    public var variant: String? {
        switch self {
        case .master, .steering: nil
        case let .mediaPlaylist(_, v), let .iFramePlaylist(_, v), let .segment(_, v, _), let .part(_, v, _, _): v
        }
    }

    /// On the path's UTF-8 bytes, not its Characters: this runs on every request, and grapheme
    /// breaking was a measurable share of a playlist request's CPU (Docs/benchmarks.md, "Issue 33").
    public static func parse(_ rawPath: String) -> Result<OriginPath, Rejection> {
        let utf8 = rawPath.utf8
        let path = utf8[..<(utf8.firstIndex(of: UInt8(ascii: "?")) ?? utf8.endIndex)]
        guard path.starts(with: "/live/".utf8) else { return .failure(.notFound) }
        var names: [String] = []
        names.reserveCapacity(3)
        for component in path.dropFirst(6).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            switch decode(Substring(component)) {
            case let .failure(rejection): return .failure(rejection)
            case let .success(name):
                guard isPlainName(name) else { return .failure(.notFound) }
                names.append(name)
            }
        }
        switch names.count {
        case 2 where names[1] == "master.m3u8":
            return .success(.master(stream: names[0]))
        case 2 where names[1] == steeringName:
            return .success(.steering(stream: names[0]))
        case 3 where names[2] == "index.m3u8":
            return .success(.mediaPlaylist(stream: names[0], variant: names[1]))
        case 3 where names[2] == "iframes.m3u8":
            return .success(.iFramePlaylist(stream: names[0], variant: names[1]))
        case 3 where names[2].utf8.count > 3 && names[2].utf8.suffix(3).elementsEqual(".ts".utf8):
            return .success(.segment(stream: names[0], variant: names[1], name: names[2]))
        case 4 where names[2] == PartialSegment.partsFolder:
            guard let (segment, index) = partName(names[3]) else { return .failure(.notFound) }
            return .success(.part(stream: names[0], variant: names[1], segment: segment, index: index))
        default:
            return .failure(.notFound)
        }
    }

    /// `<stem>.<index>.ts` as the segment `<stem>.ts` and the index (0 to 999, no leading
    /// zero); nil for any other name.
    static func partName(_ name: String) -> (segment: String, index: Int)? {
        let utf8 = Array(name.utf8)
        guard utf8.count > 5, utf8.suffix(3).elementsEqual(".ts".utf8) else { return nil }
        let body = utf8.dropLast(3)
        guard let dot = body.lastIndex(of: UInt8(ascii: ".")), dot > body.startIndex else { return nil }
        let digits = body[(dot + 1)...]
        guard (1...3).contains(digits.count), digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), digits.count == 1 || digits.first != 0x30 else { return nil }
        let index = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return (String(decoding: body[..<dot], as: UTF8.self) + ".ts", index)
    }

    /// Whether `name` is a plain name: letters, digits, `-`, `_` and `.`, not starting with a
    /// dot, at most 128 bytes. Every stream, variant and file name a path carries is one.
    public static func isPlainName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 128, name.utf8.first != UInt8(ascii: ".") else { return false }
        return name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
    }

    /// Percent-decodes one path component. Control characters (NUL included) decoded or raw,
    /// and broken escapes, make the request malformed.
    public static func decode(_ component: Substring) -> Result<String, Rejection> {
        // Nearly every request: nothing escaped, so no buffer to fill.
        if !component.utf8.contains(UInt8(ascii: "%")) {
            if component.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return .failure(.malformed("control character in the path")) }
            return .success(String(component))
        }
        var bytes: [UInt8] = []
        var iterator = component.utf8.makeIterator()
        while let c = iterator.next() {
            if c == UInt8(ascii: "%") {
                guard let h = iterator.next(), let l = iterator.next(), let hi = hexValue(h), let lo = hexValue(l) else {
                    return .failure(.malformed("bad percent-encoding in '\(component)'"))
                }
                bytes.append(hi << 4 | lo)
            } else {
                bytes.append(c)
            }
        }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            return .failure(.malformed("control character in the path"))
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(.malformed("path is not UTF-8"))
        }
        return .success(text)
    }

    /// One hex digit's value (either case); nil for any other byte.
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}
