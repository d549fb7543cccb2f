import OriginPolicy

/// What a request's path is about, as far as access goes (the gate's first step; its own
/// file, free of libcrypto, so scripts/fuzz builds it alone). Read from the path's bytes in
/// place, with no array and no copy but the names it returns: every request passes here while
/// access control is on (Docs/benchmarks.md, "Viewer access").
enum AccessScope: Equatable {
    case stream(String, variant: String?)
    case other

    static func of(path target: Substring) -> Result<AccessScope, Refusal> {
        var target = target
        return target.withUTF8 { bytes in of(bytes) }
    }

    private static func of(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<AccessScope, Refusal> {
        let slash = UInt8(ascii: "/"), question = UInt8(ascii: "?")
        // The first four non-empty components before the query (empty ones are skipped, as a
        // router that collapses '//' would), and how many there are in all.
        var c0 = 0..<0, c1 = 0..<0, c2 = 0..<0
        var count = 0
        var index = 0
        while index < bytes.count, bytes[index] != question {
            if bytes[index] == slash {
                index += 1
                continue
            }
            let start = index
            while index < bytes.count, bytes[index] != slash, bytes[index] != question { index += 1 }
            switch count {
            case 0: c0 = start..<index
            case 1: c1 = start..<index
            case 2: c2 = start..<index
            default: break
            }
            count += 1
        }
        func equals(_ range: Range<Int>, _ literal: StaticString) -> Bool {
            range.count == literal.utf8CodeUnitCount && zip(bytes[range], UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)).allSatisfy { $0 == $1 }
        }
        let stream: Range<Int>
        var variant: Range<Int>?
        if count >= 2, equals(c0, "live") || equals(c0, "vod") {
            stream = c1
            // /live/<stream>/<variant>/<file>, and /live/<stream>/<variant>/parts/<part>: the
            // variant is the third component of any path below a variant.
            if count >= 4 { variant = c2 }
        } else if count >= 3, equals(c0, "api"), equals(c1, "streams") {
            stream = c2
        } else if count >= 4, equals(c0, "api"), equals(c1, "sets") {
            // A set's markers and clips; `/api/sets/<set>` itself describes it, like `/api/streams`.
            stream = c2
        } else {
            return .success(.other)
        }
        let streamName: String
        switch name(bytes, stream) {
        case let .success(text): streamName = text
        case let .failure(refusal): return .failure(refusal)
        }
        guard let variant else { return .success(.stream(streamName, variant: nil)) }
        switch name(bytes, variant) {
        case let .success(text): return .success(.stream(streamName, variant: text))
        case let .failure(refusal): return .failure(refusal)
        }
    }

    /// A component as the routes read it: percent-decoded once (`OriginPath.decode`, whose
    /// refusals of control characters and broken escapes it keeps).
    private static func name(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Result<String, Refusal> {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        if !slice.contains(UInt8(ascii: "%")), !slice.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            return .success(String(decoding: slice, as: UTF8.self))
        }
        let component = Substring(String(decoding: slice, as: UTF8.self))
        return OriginPath.decode(component).mapError { rejection in
            if case let .malformed(reason) = rejection { return Refusal.malformed(reason) }
            return Refusal.malformed("bad path component '\(component)'")
        }
    }
}
