/// Small byte-level helpers for header values that are parsed on every request (Accept-Encoding,
/// Range, If-None-Match). Foundation's `trimmingCharacters` and `lowercased` cost several
/// microseconds per call, a measurable share of a playlist request (perf, Docs/benchmarks.md).
public enum HeaderTokens {
    public typealias Bytes = Substring.UTF8View

    /// `bytes` without leading and trailing spaces and tabs (optional whitespace, RFC 9110 §5.6.3).
    public static func trimmed(_ bytes: Bytes) -> Bytes {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start = bytes.index(after: start) }
        while end > start, isSpace(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return bytes[start..<end]
    }

    /// Case-insensitive equality with an ASCII lower-case literal.
    public static func equalsIgnoringCase(_ bytes: Bytes, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { a, b in (a >= 0x41 && a <= 0x5A ? a | 0x20 : a) == b }
        }
    }

    /// True if `bytes` starts with `lowercase`, ignoring case.
    public static func hasPrefixIgnoringCase(_ bytes: Bytes, _ lowercase: StaticString) -> Bool {
        guard bytes.count >= lowercase.utf8CodeUnitCount else { return false }
        let head = bytes[bytes.startIndex..<bytes.index(bytes.startIndex, offsetBy: lowercase.utf8CodeUnitCount)]
        return equalsIgnoringCase(head, lowercase)
    }

    /// A non-negative decimal integer of at most 18 digits (no sign, no spaces), or nil.
    public static func integer(_ bytes: Bytes) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for c in bytes {
            guard c >= 0x30 && c <= 0x39 else { return nil }
            value = value * 10 + Int(c - 0x30)
        }
        return value
    }

    public static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    /// RFC 9110 §5.6.2 tchar: what a field name (or a token) is made of.
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
