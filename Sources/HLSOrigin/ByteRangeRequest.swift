import Foundation

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
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes="), !trimmed.contains(",") else { self = .whole; return }
        let spec = trimmed.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { self = .whole; return }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        let isDigits: (String) -> Bool = { !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } && $0.count <= 18 }
        switch (first.isEmpty, last.isEmpty) {
        case (false, _):
            guard isDigits(first), let start = Int(first), last.isEmpty || isDigits(last) else { self = .whole; return }
            let end = last.isEmpty ? size - 1 : min(Int(last)!, size - 1)
            if !last.isEmpty && Int(last)! < start { self = .whole; return }
            self = start < size ? .partial(start...end) : .unsatisfiable
        case (true, false):
            // Suffix range: the last N bytes.
            guard isDigits(last), let count = Int(last) else { self = .whole; return }
            self = count == 0 || size == 0 ? .unsatisfiable : .partial(max(0, size - count)...(size - 1))
        case (true, true):
            self = .whole
        }
    }
}
