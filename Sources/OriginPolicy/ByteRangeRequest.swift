/// A `Range` request header (RFC 9110 §14.2) resolved against a resource's size. Players fetch
/// I-frames and resume downloads with single byte ranges; multi-range requests, and headers
/// that do not parse, are answered with the whole resource, which §14.2 allows.
public enum ByteRangeRequest: Equatable, Sendable {
    /// No usable Range header: 200 with the whole body.
    case whole
    /// 206 with these bytes (inclusive bounds).
    case partial(ClosedRange<Int>)
    /// 416: the range starts at or past the end.
    case unsatisfiable

    public init(header: String?, size: Int) {
        guard let header else { self = .whole; return }
        let value = HeaderTokens.trimmed(Substring(header).utf8)
        guard HeaderTokens.hasPrefixIgnoringCase(value, "bytes="), !value.contains(UInt8(ascii: ",")) else { self = .whole; return }
        let spec = value.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: UInt8(ascii: "-")) else { self = .whole; return }
        let first = HeaderTokens.trimmed(spec[spec.startIndex..<dash])
        let last = HeaderTokens.trimmed(spec[spec.index(after: dash)...])
        switch (first.isEmpty, last.isEmpty) {
        case (false, _):
            guard let start = HeaderTokens.integer(first) else { self = .whole; return }
            var end = size - 1
            if !last.isEmpty {
                guard let stated = HeaderTokens.integer(last), stated >= start else { self = .whole; return }
                end = min(stated, size - 1)
            }
            self = start < size ? .partial(start...end) : .unsatisfiable
        case (true, false):
            // Suffix range: the last N bytes.
            guard let count = HeaderTokens.integer(last) else { self = .whole; return }
            self = count == 0 || size == 0 ? .unsatisfiable : .partial(max(0, size - count)...(size - 1))
        case (true, true):
            self = .whole
        }
    }
}
