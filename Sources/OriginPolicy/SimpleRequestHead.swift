/// The head of a request simple enough to be answered straight from the socket's bytes: `GET`
/// or `HEAD`, HTTP/1.1, an origin-form target, no body and nothing that changes the
/// connection. That is every request a player makes for a playlist or a segment.
///
/// Why a parser of our own beside NIO's: NIO's HTTP/1 decoder, the conversion of its head to
/// HTTPTypes and back, and the handlers between them cost about a fifth of a small playlist
/// request's server CPU (Docs/benchmarks.md, "Issue 33"). This scan decides only whether a
/// request is simple; anything it does not recognise byte for byte is handed on whole to NIO's
/// decoder, which answers it exactly as before (a 400 included). So it may be strict: being
/// wrong costs a request the slower path, never a different answer.
///
/// Every byte is hostile: the scan reads at most `maxLength` bytes, keeps at most
/// `maxFields` fields, and never traps (`Tests/FuzzCorpusTests`, target `request-head`).
public struct SimpleRequestHead: Sendable, Equatable {
    public enum Method: Sendable, Equatable { case get, head }

    public struct Field: Sendable, Equatable {
        /// As sent (validated as an RFC 9110 token).
        public let name: String
        /// Without leading and trailing whitespace; visible ASCII, spaces and tabs only.
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public let method: Method
    /// Origin form: starts with `/`, visible ASCII only.
    public let target: String
    public let fields: [Field]

    public init(method: Method, target: String, fields: [Field]) {
        self.method = method
        self.target = target
        self.fields = fields
    }

    public enum Scan: Sendable, Equatable {
        /// No end of the head yet, and nothing seen so far rules the request out: wait for more.
        case incomplete
        /// Not a simple request (or not one this scan vouches for): hand these bytes, and every
        /// later byte of the connection, to the full decoder.
        case handOn
        /// A whole simple request, `length` bytes long from the start.
        case complete(SimpleRequestHead, length: Int)
    }

    /// Longer heads go to the full decoder (whose own limit is higher). Players send a few
    /// hundred bytes.
    public static let maxLength = 8192
    public static let maxFields = 64

    /// Field names (lower case) that give a request a body, change the connection or ask for
    /// an interim answer: never simple. `Proxy-Connection` too: NIO's decoder (llhttp) reads
    /// it as `Connection`.
    static let excluded: [StaticString] = ["content-length", "transfer-encoding", "upgrade", "expect", "te", "http2-settings", "proxy-connection"]

    public static func scan(_ bytes: UnsafeRawBufferPointer) -> Scan {
        let count = bytes.count
        guard count > 0 else { return .incomplete }
        // The method, decided as soon as its bytes are there.
        let method: Method
        let targetStart: Int
        if startsWith(bytes, "GET ") {
            method = .get
            targetStart = 4
        } else if startsWith(bytes, "HEAD ") {
            method = .head
            targetStart = 5
        } else {
            return couldStillBe(bytes, "GET ") || couldStillBe(bytes, "HEAD ") ? .incomplete : .handOn
        }
        // The end of the head: the first CR LF CR LF, within the bound. A byte no simple head
        // holds (a bare CR or LF, a control byte, non-ASCII) hands on at once: waiting for more
        // would leave a request the decoder answers unanswered.
        let limit = min(count, maxLength)
        var end = -1
        var i = targetStart
        while i < limit {
            let byte = bytes[i]
            if byte == cr {
                guard i + 1 < limit else { break }
                guard bytes[i + 1] == lf else { return .handOn }
                if i + 3 < limit, bytes[i + 2] == cr, bytes[i + 3] == lf {
                    end = i
                    break
                }
                i += 2
                continue
            }
            guard byte != lf, isValueByte(byte) else { return .handOn }
            i += 1
        }
        guard end >= 0 else { return count >= maxLength ? .handOn : .incomplete }
        // Request line: target SP "HTTP/1.1" CR LF.
        var position = targetStart
        while position < end, isTargetByte(bytes[position]) { position += 1 }
        let targetEnd = position
        guard targetEnd > targetStart, bytes[targetStart] == slash else { return .handOn }
        guard matches(bytes, at: targetEnd, " HTTP/1.1\r\n") else { return .handOn }
        let target = ascii(bytes, targetStart, targetEnd)
        position = targetEnd + 11
        // Fields, one per line, up to the empty line at `end`.
        var fields: [Field] = []
        while position < end + 2 {
            guard fields.count < maxFields else { return .handOn }
            let nameStart = position
            while position < end, HeaderTokens.isTokenByte(bytes[position]) { position += 1 }
            guard position > nameStart, position < end, bytes[position] == colon else { return .handOn }
            let name = ascii(bytes, nameStart, position)
            position += 1
            var valueStart = position
            while position < end + 2, bytes[position] != cr {
                guard isValueByte(bytes[position]) else { return .handOn }
                position += 1
            }
            // Every line ends CR LF (the one before `end` included): a bare CR is not simple.
            guard position + 1 < count, bytes[position] == cr, bytes[position + 1] == lf else { return .handOn }
            var valueEnd = position
            while valueStart < valueEnd, HeaderTokens.isSpace(bytes[valueStart]) { valueStart += 1 }
            while valueEnd > valueStart, HeaderTokens.isSpace(bytes[valueEnd - 1]) { valueEnd -= 1 }
            let value = ascii(bytes, valueStart, valueEnd)
            // Compared on the bytes, without a lower-cased copy: this runs for every field.
            let nameBytes = Substring(name).utf8
            if excluded.contains(where: { HeaderTokens.equalsIgnoringCase(nameBytes, $0) }) { return .handOn }
            if HeaderTokens.equalsIgnoringCase(nameBytes, "connection"), !HeaderTokens.equalsIgnoringCase(Substring(value).utf8, "keep-alive") { return .handOn }
            fields.append(Field(name: name, value: value))
            position += 2
        }
        return .complete(SimpleRequestHead(method: method, target: target, fields: fields), length: end + 4)
    }

    private static let cr: UInt8 = 13
    private static let lf: UInt8 = 10
    private static let slash = UInt8(ascii: "/")
    private static let colon = UInt8(ascii: ":")

    private static func startsWith(_ bytes: UnsafeRawBufferPointer, _ prefix: StaticString) -> Bool {
        matches(bytes, at: 0, prefix)
    }

    private static func matches(_ bytes: UnsafeRawBufferPointer, at offset: Int, _ text: StaticString) -> Bool {
        let length = text.utf8CodeUnitCount
        guard offset >= 0, offset + length <= bytes.count else { return false }
        let start = text.utf8Start
        for k in 0..<length where bytes[offset + k] != start[k] { return false }
        return true
    }

    /// Whether the bytes so far are a beginning of `prefix`.
    private static func couldStillBe(_ bytes: UnsafeRawBufferPointer, _ prefix: StaticString) -> Bool {
        guard bytes.count < prefix.utf8CodeUnitCount else { return false }
        let start = prefix.utf8Start
        for k in 0..<bytes.count where bytes[k] != start[k] { return false }
        return true
    }

    private static func ascii(_ bytes: UnsafeRawBufferPointer, _ from: Int, _ to: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[from..<to]), as: UTF8.self)
    }

    /// Visible ASCII: what an origin-form target may hold (anything else, percent-encoded).
    private static func isTargetByte(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

    /// A field value's bytes this scan vouches for: visible ASCII, space and tab (no obs-text).
    private static func isValueByte(_ byte: UInt8) -> Bool { (byte >= 0x20 && byte < 0x7F) || byte == 0x09 }
}
