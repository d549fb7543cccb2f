import OriginPolicy
import RawStructuredFieldValues

/// What one request's Common Media Client Data (CTA-5004) says about the player that sent it:
/// the `CMCD` query parameter and the `CMCD-Request`, `CMCD-Object`, `CMCD-Status` and
/// `CMCD-Session` headers, each an RFC 8941 dictionary (parsed with
/// swift-http-structured-headers). Only the keys Sideline uses are kept; others are ignored, as
/// the specification asks. Pure.
public struct CMCDReport: Sendable, Equatable {
    /// `sid`: the playback session.
    public var sessionID: String?
    /// `cid`: the content the player says it plays.
    public var contentID: String?
    /// `bl`: buffer length, milliseconds.
    public var bufferLength: Int?
    /// `mtp`: throughput the player measured, kbit/s.
    public var measuredThroughput: Int?
    /// `br`: encoded bit rate of the object, kbit/s.
    public var encodedBitrate: Int?
    /// `bs`: the buffer ran dry since the previous request.
    public var bufferStarvation = false
    /// `su`: the player is starting up (or seeking).
    public var startup = false
    /// `ot`: object type (m manifest, v video, av muxed, i init...).
    public var objectType: String?
    /// `st`: stream type (v VOD, l live).
    public var streamType: String?
    /// `pr`: playback rate.
    public var playbackRate: Double?

    public init() {}

    public enum Failure: Error, Equatable {
        /// A CMCD field or parameter that is not a structured-field dictionary.
        case malformed(String)
    }

    /// The report of a request's CMCD, or nil when it carries none. `query`: the raw query
    /// string (percent-encoded); `headers`: the four CMCD headers' values, those present.
    public static func parse(query: String?, headers: [String]) throws(Failure) -> CMCDReport? {
        var fields = headers
        if let query, let value = queryValue(query) {
            guard let decoded = percentDecoded(value) else { throw .malformed("the CMCD query parameter is not percent-encoded text") }
            fields.append(decoded)
        }
        guard !fields.isEmpty else { return nil }
        var report = CMCDReport()
        for field in fields where !field.isEmpty {
            let dictionary: OrderedMap<String, ItemOrInnerList>
            do {
                var parser = StructuredFieldValueParser(Array(field.utf8))
                dictionary = try parser.parseDictionaryFieldValue()
            } catch {
                throw .malformed("'\(field.prefix(80))' is not a structured-field dictionary")
            }
            for (key, value) in dictionary {
                guard case let .item(item) = value else { continue }
                report.take(key, item.rfc9651BareItem)
            }
        }
        return report
    }

    private mutating func take(_ key: String, _ value: RFC9651BareItem) {
        switch (key, value) {
        case let ("sid", .string(text)): sessionID = String(text.prefix(64))
        case let ("cid", .string(text)): contentID = String(text.prefix(64))
        case let ("bl", .integer(n)): bufferLength = Self.bounded(n)
        case let ("mtp", .integer(n)): measuredThroughput = Self.bounded(n)
        case let ("br", .integer(n)): encodedBitrate = Self.bounded(n)
        case let ("bs", .bool(flag)): bufferStarvation = flag
        case let ("su", .bool(flag)): startup = flag
        case let ("ot", .token(token)): objectType = String(token.prefix(8))
        case let ("st", .token(token)): streamType = String(token.prefix(8))
        case let ("pr", .decimal(d)): playbackRate = Double(d.mantissa) * pow10(Int(d.exponent))
        case let ("pr", .integer(n)): playbackRate = Double(n)
        default: break  // keys Sideline does not use, or a type the specification does not give them
        }
    }

    private static func bounded(_ n: Int64) -> Int { Int(max(0, min(n, 1 << 40))) }

    private func pow10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<abs(exponent) { result *= 10 }
        return exponent < 0 ? 1 / result : result
    }

    /// The raw value of the `CMCD` query parameter, if any.
    static func queryValue(_ query: String) -> Substring? {
        for pair in query.split(separator: "&") where pair.hasPrefix("CMCD=") {
            return pair.dropFirst("CMCD=".count)
        }
        return nil
    }

    /// Percent-decoding of a query value, as the origin decodes path components ('+' stays:
    /// CMCD values are encoded with %20).
    static func percentDecoded(_ text: Substring) -> String? {
        guard text.utf8.count <= 4096, case let .success(decoded) = OriginPath.decode(text) else { return nil }
        return decoded
    }
}
