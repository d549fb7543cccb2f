import Foundation
import HTTPTypes
import OriginPolicy

/// One request this box makes of another box of the venue: what it answered, or nil for no
/// whole answer in time.
public struct VenueBoxAnswer: Sendable, Equatable {
    public var status: Int
    /// The body (empty when it was written to a file, `VenueBoxCalling.send(saveTo:)`).
    public var body: [UInt8]
    /// The answer was longer than the caller takes: whatever its status, not taken.
    public var tooLarge: Bool
    public init(status: Int, body: [UInt8] = [], tooLarge: Bool = false) {
        self.status = status
        self.body = body
        self.tooLarge = tooLarge
    }

    /// A 2xx the caller may take: `status` and not too large.
    public func `is`(_ status: Int) -> Bool { self.status == status && !tooLarge }

    /// What the box said, fit to quote in a refusal: at most 300 characters of its text, no
    /// control characters (the body is the network's).
    public var said: String {
        let text = String(decoding: body.prefix(1200), as: UTF8.self)
        let printable = String(String.UnicodeScalarView(text.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }))
        let short = printable.prefix(300)
        return "\(status)" + (short.isEmpty ? "" : ": " + short)
    }
}

/// How this box reaches the venue's other boxes (issue 35, `boxes`) for a set whose angles they
/// serve: the executable gives it (`VenueBoxClient`, MirrorServices); this module opens no
/// connection of its own.
public protocol VenueBoxCalling: Sendable {
    /// One request to `url`, with the caller's `authorization` passed on (the venue's boxes
    /// share their analysts' tokens), answered within `timeout` seconds. With `saveTo`, a 200's
    /// body is written to that file, at most `limit` bytes (more is no answer, and no file).
    func send(_ method: HTTPRequest.Method, url: String, body: [UInt8]?, authorization: String?, saveTo: String?, limit: Int, timeout: Double) async -> VenueBoxAnswer?
}

/// The venue's other boxes as the set routes use them: who serves which angle, and the way there.
public struct VenueBoxes: Sendable {
    public let calls: any VenueBoxCalling
    /// Angle (stream name) -> the base URL of the box that serves it.
    public let bases: [String: String]

    public init(calls: any VenueBoxCalling, bases: [String: String]) {
        self.calls = calls
        self.bases = bases
    }

    /// `angles` in order, split into this box's and the others'.
    public func split(_ angles: [String]) -> (local: [String], remote: [String]) {
        (angles.filter { bases[$0] == nil }, angles.filter { bases[$0] != nil })
    }

    /// The refusal for an angle whose box did not do its part: 502, naming the angle.
    static func failed(_ angle: String, _ what: String, answer: VenueBoxAnswer?) -> Refusal {
        Refusal(.upstreamFailed, "angle '\(angle)' is served by another box of the venue, which did not \(what) (" + (answer.map(\.said) ?? "no answer in time") + ")",
                audience: .operators)
    }
}
