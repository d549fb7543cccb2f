import OriginPolicy

/// A multipart/form-data body (RFC 7578 over RFC 2046 §5.1.1), split into its parts: each
/// part's header fields and where its body lies. Pure, over bytes in memory, in time linear in
/// their length, with the parts and each part's header block bounded.
///
/// Sideline read these with MultipartKit 4.7.1 until the fuzzer found that its parser indexes a
/// 128-entry table with a header name's byte: one byte above 127 there stopped the server
/// (issue 26; Tests/Fixtures/fuzz/multipart-form/crash-header-name-byte-above-127). The ingest
/// only needs the parts of a whole body already in memory, which this does.
public enum MultipartForm {
    public struct Header: Sendable, Equatable {
        /// Lowercased: field names are case-insensitive.
        public var name: String
        public var value: String
    }

    public struct Part: Sendable, Equatable {
        public var headers: [Header]
        /// Where the part's body lies in the bytes given.
        public var body: Range<Int>

        /// The first field of that name (any case), its value trimmed.
        public func header(_ name: String) -> String? {
            let name = name.lowercased()
            return headers.first { $0.name == name }?.value
        }
    }

    public struct Rejection: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// More parts than a form of a few fields and a file needs.
    public static let maximumParts = 64
    /// One part's header block: a few fields of a line each.
    public static let maximumHeaderBytes = 8 << 10

    /// The parts of `bytes`, delimited by `boundary`, in order; the preamble and the epilogue
    /// are ignored (RFC 2046 §5.1.1).
    public static func parts(of bytes: [UInt8], boundary: String) -> Result<[Part], Rejection> {
        guard isBoundary(boundary) else {
            return .failure(Rejection(description: "the boundary must be 1 to 70 letters, digits or '()+_,-./:=? (RFC 2046 §5.1.1)"))
        }
        let delimiter = Array("--\(boundary)".utf8)
        // What ends a body: CRLF then the delimiter.
        let separator = [cr, lf] + delimiter
        let search = Search(separator)
        var position: Int
        if bytes.starts(with: delimiter) {
            position = delimiter.count
        } else if let found = search.first(in: bytes, from: 0) {
            position = found + separator.count
        } else {
            return .failure(Rejection(description: "no delimiter --\(boundary) in the body"))
        }
        var parts: [Part] = []
        while true {
            // After a delimiter: "--" closes the form; otherwise optional blanks, then CRLF.
            if bytes[position...].starts(with: [dash, dash]) { return .success(parts) }
            while position < bytes.count, bytes[position] == space || bytes[position] == tab { position += 1 }
            guard bytes[position...].starts(with: [cr, lf]) else {
                return .failure(Rejection(description: position == bytes.count ? "the body ends before its close delimiter --\(boundary)--"
                    : "a delimiter is followed by something other than a line end"))
            }
            position += 2
            guard parts.count < maximumParts else { return .failure(Rejection(description: "more than \(maximumParts) parts")) }
            let headers: [Header]
            switch readHeaders(bytes, from: &position) {
            case let .success(read): headers = read
            case let .failure(rejection): return .failure(rejection)
            }
            guard let end = search.first(in: bytes, from: position) else {
                return .failure(Rejection(description: "part \(parts.count + 1) has no delimiter after its body: the body was cut short"))
            }
            parts.append(Part(headers: headers, body: position..<end))
            position = end + separator.count
        }
    }

    /// Header lines up to the blank line that ends them; `position` moves past it.
    private static func readHeaders(_ bytes: [UInt8], from position: inout Int) -> Result<[Header], Rejection> {
        let limit = min(bytes.count, position + maximumHeaderBytes)
        var headers: [Header] = []
        while true {
            var lineEnd = position
            while lineEnd + 1 < limit, !(bytes[lineEnd] == cr && bytes[lineEnd + 1] == lf) { lineEnd += 1 }
            guard lineEnd + 1 < limit else {
                return .failure(Rejection(description: limit == bytes.count ? "a part's header fields are cut short"
                    : "a part's header fields are longer than \(maximumHeaderBytes) bytes"))
            }
            defer { position = lineEnd + 2 }
            if lineEnd == position { return .success(headers) }
            let line = bytes[position..<lineEnd]
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > position, line[..<colon].allSatisfy(HeaderTokens.isTokenByte) else {
                return .failure(Rejection(description: "a part's header line is not 'Name: value' with a token for its name"))
            }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingBlanks
            headers.append(Header(name: String(decoding: line[..<colon], as: UTF8.self).lowercased(), value: value))
        }
    }

    /// RFC 2046 §5.1.1: 1 to 70 of `bchars`, not ending in a space.
    static func isBoundary(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let others = Set("'()+_,-./:=? ".utf8)
        return (1...70).contains(bytes.count) && bytes.last != space
            && bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) || others.contains($0) }
    }

    static let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n"), dash = UInt8(ascii: "-"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

    /// Knuth-Morris-Pratt: a body full of near-delimiters costs no more than any other body.
    struct Search {
        let pattern: [UInt8]
        let fallback: [Int]

        init(_ pattern: [UInt8]) {
            self.pattern = pattern
            var fallback = [Int](repeating: 0, count: pattern.count)
            var length = 0
            for index in pattern.indices.dropFirst() {
                while length > 0 && pattern[index] != pattern[length] { length = fallback[length - 1] }
                if pattern[index] == pattern[length] { length += 1 }
                fallback[index] = length
            }
            self.fallback = fallback
        }

        /// Where the pattern first starts at or after `start`.
        func first(in bytes: [UInt8], from start: Int) -> Int? {
            var matched = 0
            var index = start
            while index < bytes.count {
                while matched > 0 && bytes[index] != pattern[matched] { matched = fallback[matched - 1] }
                if bytes[index] == pattern[matched] { matched += 1 }
                if matched == pattern.count { return index - pattern.count + 1 }
                index += 1
            }
            return nil
        }
    }
}

private extension String {
    var trimmingBlanks: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
