import Foundation

/// `#EXT-X-DATERANGE` (RFC 8216 §4.3.2.7): a span of wall-clock time with a meaning.
/// Sideline marks each input outage with one of its own CLASS, so tools can find the spans
/// where the slate (or GAP entries) stood in for the camera. An outage is written twice with
/// the same ID: once when it begins (no END-DATE yet) and once when it ends; §4.3.2.7.1 allows
/// that as long as the attributes both tags carry are equal.
public struct DateRange: Sendable, Equatable {
    public var id: String
    public var classLabel: String?
    public var startDate: Date
    public var endDate: Date?
    /// `DURATION` in seconds (§4.3.2.7): how long the range lasts, when known but not ended by END-DATE.
    public var duration: Double?
    /// Client-defined attributes (`X-<name>`, §4.3.2.7), as quoted strings, rendered in name
    /// order so the same range always renders the same text. Values must hold no double quote,
    /// carriage return or line feed (§4.2 quoted-string).
    public var clientAttributes: [String: String]

    public init(id: String, classLabel: String? = nil, startDate: Date, endDate: Date? = nil, duration: Double? = nil,
                clientAttributes: [String: String] = [:]) {
        self.id = id
        self.classLabel = classLabel
        self.startDate = startDate
        self.endDate = endDate
        self.duration = duration
        self.clientAttributes = clientAttributes
    }

    /// The CLASS of an input outage.
    public static let inputLostClass = "com.sideline.input-lost"
    /// The CLASS of a span whose slots a variant's stand-in card filled (late segments).
    public static let standInClass = "com.sideline.stand-in"
    /// The CLASS of a span where a failed variant carries a sibling's segments.
    public static let siblingFillClass = "com.sideline.sibling-fill"

    /// One outage, named by when it began (unique within a stream).
    public static func inputLost(since start: Date, until end: Date? = nil) -> DateRange {
        DateRange(id: "input-lost-" + ProgramDateTime.format(start), classLabel: inputLostClass, startDate: start, endDate: end)
    }

    public func render() -> String {
        var text = "#EXT-X-DATERANGE:ID=\"\(id)\""
        if let classLabel { text += ",CLASS=\"\(classLabel)\"" }
        text += ",START-DATE=\"\(ProgramDateTime.format(startDate))\""
        if let endDate { text += ",END-DATE=\"\(ProgramDateTime.format(endDate))\"" }
        if let duration { text += ",DURATION=\(DecimalFormat.fixed(duration, places: 3))" }
        for (name, value) in clientAttributes.sorted(by: { $0.key < $1.key }) { text += ",\(name)=\"\(value)\"" }
        return text + "\n"
    }

    /// Reads the attributes Sideline writes; nil when ID or START-DATE is missing or invalid.
    public static func parse(attributes text: String) -> DateRange? {
        guard let values = AttributeList.parse(text) else { return nil }
        guard let id = values["ID"], let start = values["START-DATE"].flatMap({ ProgramDateTime.parse(Substring($0)) }) else { return nil }
        // Rendered as quoted strings: a value that holds a quote would not read back.
        guard SessionData.isQuotable(id), values["CLASS"].map(SessionData.isQuotable) ?? true else { return nil }
        let end = values["END-DATE"].flatMap { ProgramDateTime.parse(Substring($0)) }
        if values["END-DATE"] != nil && end == nil { return nil }
        // Finite and bounded: it is rendered, and added to dates.
        let duration = values["DURATION"].flatMap { PlaylistLimits.decimal($0, in: 0...PlaylistLimits.longestSpan) }
        if values["DURATION"] != nil && duration == nil { return nil }
        let client = values.filter { $0.key.hasPrefix("X-") && SessionData.isQuotable($0.value) }
        return DateRange(id: id, classLabel: values["CLASS"], startDate: start, endDate: end, duration: duration, clientAttributes: client)
    }
}
