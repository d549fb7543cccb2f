import Foundation
import HLSPlaylist

/// The body of `POST /api/streams/{stream}/markers`, checked field by field into a `Marker`:
///
///     {"label": "Try, 23rd minute", "time": "now", "lead": 8, "duration": 20,
///      "author": "Sam", "colour": "#e0a030"}
///
/// `label` is required; `time` is a program date-time (ISO 8601) or `"now"` (the default), from
/// which `lead` seconds are taken back (the play began before the analyst pressed the button).
/// `id` is for a box of the venue marking a set's angle on another box (issue 35, `boxes`): the
/// marker keeps the id the set's marker has there, so it is removed by the same id.
/// Pure: the clock, the recording's span and the new marker's id are given.
public enum MarkerRequest {
    public static let fields = ["label", "time", "lead", "duration", "author", "colour", "id"]
    /// An id a box makes (`m-<milliseconds>-<counter>`, base 36), bounded.
    static let maximumID = 32
    static let maximumLabel = 120
    static let maximumAuthor = 80
    static let maximumLead = 600.0
    static let maximumDuration = 3 * 3600.0

    /// Which field is wrong and why, for a 400.
    public struct Rejection: Error, Equatable, Sendable, CustomStringConvertible {
        public let field: String?
        public let reason: String
        public var description: String { field.map { "\($0): \(reason)" } ?? reason }
        public init(field: String?, reason: String) {
            self.field = field
            self.reason = reason
        }
    }

    /// What the marker is checked against.
    public struct Context: Sendable {
        /// Server time now.
        public var now: Date
        /// The wall-clock span the stream's recording covers; nil before its first entry.
        public var recording: ClosedRange<Date>?
        /// Whether the stream is still recording (a live marker may then mark up to now).
        public var live: Bool
        /// The media sequence number the next published entry will have.
        public var nextSequence: Int
        public var id: String

        public init(now: Date, recording: ClosedRange<Date>?, live: Bool, nextSequence: Int, id: String) {
            self.now = now
            self.recording = recording
            self.live = live
            self.nextSequence = nextSequence
            self.id = id
        }
    }

    public static func marker(from body: [UInt8], context: Context) -> Result<Marker, Rejection> {
        Result { () throws(Rejection) in try parse(body, context) }
    }

    private static func parse(_ body: [UInt8], _ context: Context) throws(Rejection) -> Marker {
        guard let fields = try? JSONDecoder().decode([String: JSONValue].self, from: Data(body)) else {
            throw Rejection(field: nil, reason: "the body must be a JSON object such as {\"label\": \"Try\", \"time\": \"now\"}")
        }
        if let unknown = fields.keys.sorted().first(where: { !Self.fields.contains($0) }) {
            throw Rejection(field: unknown, reason: "unknown field; a marker has \(Self.fields.joined(separator: ", "))")
        }
        let label = try text("label", in: fields, maximum: maximumLabel, required: true)!
        let author = try text("author", in: fields, maximum: maximumAuthor, required: false)
        let colour = try self.colour(in: fields)
        let lead = try number("lead", in: fields, range: 0...maximumLead)
        let duration = try number("duration", in: fields, range: 0.001...maximumDuration)
        let time = try self.time(in: fields, lead: lead, context: context)
        let id = try self.id(in: fields) ?? context.id
        return Marker(id: id, label: label, time: time, duration: duration, author: author, colour: colour,
                      created: context.now, listedBefore: context.nextSequence)
    }

    private static func time(in fields: [String: JSONValue], lead: Double?, context: Context) throws(Rejection) -> Date {
        let time: Date
        switch fields["time"] {
        case nil, .string("now"):
            time = context.now.addingTimeInterval(-(lead ?? 0))
        case let .string(text):
            guard lead == nil else { throw Rejection(field: "lead", reason: "lead goes with \"time\": \"now\" only; give the moment itself as time") }
            guard let date = ProgramDateTime.parse(Substring(text)) else {
                throw Rejection(field: "time", reason: "must be \"now\" or a program date-time such as 2026-11-24T15:04:05.000Z, not '\(text)'")
            }
            time = date
        default:
            throw Rejection(field: "time", reason: "must be a string: \"now\" or a program date-time such as 2026-11-24T15:04:05.000Z")
        }
        guard let recording = context.recording else {
            throw Rejection(field: "time", reason: "the stream has recorded nothing yet; mark a play once its first segment is listed")
        }
        // A live recording runs up to now (the newest segment is still being encoded).
        let end = context.live ? max(recording.upperBound, context.now) : recording.upperBound
        guard time >= recording.lowerBound, time <= end else {
            throw Rejection(field: "time", reason: "\(ProgramDateTime.format(time)) lies outside the recording, which runs from \(ProgramDateTime.format(recording.lowerBound)) to \(ProgramDateTime.format(end))")
        }
        return time
    }

    /// A string field that an HLS quoted-string can carry (§4.2: no double quote, CR or LF).
    private static func text(_ name: String, in fields: [String: JSONValue], maximum: Int, required: Bool) throws(Rejection) -> String? {
        guard let value = fields[name] else {
            if required { throw Rejection(field: name, reason: "is required") }
            return nil
        }
        guard case let .string(text) = value else { throw Rejection(field: name, reason: "must be a string") }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { throw Rejection(field: name, reason: "must not be empty") }
        if trimmed.count > maximum { throw Rejection(field: name, reason: "must be at most \(maximum) characters, not \(trimmed.count)") }
        if trimmed.contains("\"") { throw Rejection(field: name, reason: "must not contain a double quote (\"): playlists carry it as an HLS quoted-string; use ' instead") }
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw Rejection(field: name, reason: "must not contain control characters (line breaks, tabs)")
        }
        return trimmed
    }

    private static func number(_ name: String, in fields: [String: JSONValue], range: ClosedRange<Double>) throws(Rejection) -> Double? {
        guard let value = fields[name] else { return nil }
        guard case let .number(seconds) = value else { throw Rejection(field: name, reason: "must be a number of seconds") }
        guard seconds.isFinite, range.contains(seconds) else {
            throw Rejection(field: name, reason: "must be from \(DecimalFormatting.plain(range.lowerBound)) to \(DecimalFormatting.plain(range.upperBound)) seconds, not \(DecimalFormatting.plain(seconds))")
        }
        return seconds
    }

    /// `m-` then letters a-z, digits and '-', at most `maximumID` characters: what `MarkerBook`
    /// makes, and safe in a path.
    public static func isMarkerID(_ text: String) -> Bool {
        text.count <= maximumID && text.hasPrefix("m-") && text.count > 2
            && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    private static func id(in fields: [String: JSONValue]) throws(Rejection) -> String? {
        guard let value = fields["id"] else { return nil }
        guard case let .string(text) = value, isMarkerID(text) else {
            throw Rejection(field: "id", reason: "must be a marker id as a box makes them (m- then a-z, 0-9 and -, at most \(maximumID) characters)")
        }
        return text
    }

    /// The body that marks `marker` on an angle another box serves: its moment as a program
    /// date-time (so "now" and `lead` mean this box's moment there too) and its id.
    public static func forwarded(_ marker: Marker) -> [UInt8] {
        let body = Forwarded(id: marker.id, label: marker.label, time: ProgramDateTime.format(marker.time), duration: marker.duration,
                             author: marker.author, colour: marker.colour)
        // Strings and finite numbers only (a marker's duration is checked when it is made).
        return (try? JSONEncoder().encode(body)).map(Array.init) ?? []
    }

    /// The fields `forwarded` sends; absent optionals are left out.
    private struct Forwarded: Encodable {
        let id: String
        let label: String
        let time: String
        let duration: Double?
        let author: String?
        let colour: String?
    }

    private static func colour(in fields: [String: JSONValue]) throws(Rejection) -> String? {
        guard let value = fields["colour"] else { return nil }
        guard case let .string(text) = value, text.count == 7, text.first == "#", text.dropFirst().allSatisfy(\.isHexDigit) else {
            throw Rejection(field: "colour", reason: "must be #rrggbb, such as #e0a030")
        }
        return text.lowercased()
    }
}

/// One JSON value of a request body, as far as a check needs to tell them apart.
enum JSONValue: Decodable, Equatable {
    case string(String)
    case number(Double)
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if (try? container.decode(Bool.self)) != nil {
            // Tried before numbers: some decoders read true as 1.
            self = .other
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .other
        }
    }
}

/// Numbers in messages as a person writes them: 600, 0.5.
enum DecimalFormatting {
    static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
