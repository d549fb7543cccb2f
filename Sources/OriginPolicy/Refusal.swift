/// Every refusal of every route (live, VOD, clips, markers, admin, pipeline operations): what
/// kind it is (which fixes its status), the reason a person reads, and how caches and clients
/// may treat it. One type, so one place turns it into HTTP (`Refusal+HTTP.swift` in
/// HLSOrigin) and `Docs/status-codes.md` is checked against `Kind` row by row
/// (`RefusalDocumentationTests`).
public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as the status table names it. The raw value is the name the docs use.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The request itself is wrong: a malformed path, directive, time window, marker field
        /// or drill parameter. The reason names the parameter and why.
        case malformedRequest = "malformed-request"
        /// No credentials, or credentials that match no token.
        case unauthorized
        /// Valid credentials (or none needed), but what is asked is switched off here.
        case forbidden
        /// A path that names no resource of the server.
        case noSuchResource = "no-such-resource"
        case noSuchStream = "no-such-stream"
        case noSuchVariant = "no-such-variant"
        case noSuchMarker = "no-such-marker"
        /// A listed name whose segment is not produced (yet).
        case segmentNotAvailable = "segment-not-available"
        /// An EXT-X-GAP entry: it will never exist.
        case gapSegment = "gap-segment"
        /// A live media playlist with nothing new for 1.5 target durations.
        case stalePlaylist = "stale-playlist"
        /// Nothing recorded yet to make the VOD rendition or the clip from.
        case nothingRecorded = "nothing-recorded"
        /// A clip range that holds only EXT-X-GAP entries.
        case onlyGaps = "only-gaps"
        /// The stream's state does not allow it now: a drill while its pipeline is being
        /// opened, a cut on an input that cannot be lost.
        case conflict
        /// Removed by the operator or by retention: gone for good.
        case streamRemoved = "stream-removed"
        /// Something that should have worked did not: logged, and the reason says what.
        case internalError = "internal-error"
        /// An upload larger than the ingest takes (RFC 9110 §15.5.14).
        case tooLarge = "too-large"
        /// A `Range` that starts at or past the end of the segment (RFC 9110 §15.5.17).
        case rangeNotSatisfiable = "range-not-satisfiable"
        /// The disk is full: an upload could not be kept (RFC 4918 §11.5). Nothing torn is left.
        case insufficientStorage = "insufficient-storage"
        /// Too many refused credentials from one address (`CredentialThrottle`): 429 with
        /// `Retry-After` (RFC 6585 §4) until it may try again.
        case tooManyAttempts = "too-many-attempts"
        /// More requests held at once (blocking reloads, hinted parts) by one client than
        /// `server.max_held_per_client` (`PerClientBook`): 429 with `Retry-After`, never
        /// cached, so the other viewers behind an edge ask again for themselves.
        case tooManyHeld = "too-many-held"
        /// More requests in flight at once from one player behind a trusted edge than
        /// `server.max_connections_per_client` (`PerClientBook`): 429 with `Retry-After`, never
        /// cached, so the edge's other viewers ask again for themselves.
        case tooManyRequests = "too-many-requests"
        /// A playlist of a stream with no segment yet: it will exist in seconds.
        case starting
        /// The server is shutting down.
        case draining
        /// More connections or requests in flight than configured.
        case overloaded
        /// Blocking reload at part granularity, or a request for the hinted part, held for
        /// three target durations and the part not made (draft-pantos-hls-rfc8216bis §6.2.5.2).
        case partNotReady = "part-not-ready"
        /// Another box of the venue did not do its part of a request for a set whose angles it
        /// serves (a marker, a clip): 502, naming the angle and what that box said.
        case upstreamFailed = "upstream-failed"

        /// The HTTP status of every refusal of this kind: the one place it is decided.
        public var status: Int {
            switch self {
            case .malformedRequest: 400
            case .unauthorized: 401
            case .forbidden: 403
            case .noSuchResource, .noSuchStream, .noSuchVariant, .noSuchMarker, .segmentNotAvailable, .gapSegment, .stalePlaylist, .nothingRecorded, .onlyGaps: 404
            case .conflict: 409
            case .streamRemoved: 410
            case .tooLarge: 413
            case .rangeNotSatisfiable: 416
            case .tooManyAttempts, .tooManyHeld, .tooManyRequests: 429
            case .internalError: 500
            case .upstreamFailed: 502
            case .insufficientStorage: 507
            case .starting, .draining, .overloaded, .partNotReady: 503
            }
        }
    }

    /// Who reads the answer: players and pages (open to every origin, cached as `cache` says),
    /// or an operator's and analyst's API call (never cached unless `cache` says otherwise,
    /// no cross-origin header: those APIs are called from the page's own origin or a shell).
    public enum Audience: Sendable, Equatable {
        case players
        case operators
    }

    public var kind: Kind
    public var reason: String
    public var retryAfter: Int?
    public var cache: CachePolicy
    public var audience: Audience
    /// The `WWW-Authenticate` challenge's realm, for `unauthorized`.
    public var realm: String?
    /// The size of the resource a `Range` did not fit, for `rangeNotSatisfiable`
    /// (`Content-Range: bytes */size`).
    public var rangeOf: Int?

    public init(_ kind: Kind, _ reason: String, retryAfter: Int? = nil, cache: CachePolicy? = nil, audience: Audience = .players, realm: String? = nil,
                rangeOf: Int? = nil) {
        self.kind = kind
        self.reason = reason
        self.retryAfter = retryAfter
        self.audience = audience
        // A part not made yet is never stored as a refusal by a cache in front: it exists in
        // a part target's time.
        self.cache = cache ?? (audience == .operators || kind == .partNotReady || kind == .tooManyHeld || kind == .tooManyRequests ? .noStore : kind == .streamRemoved ? .gone : .transientError)
        self.realm = realm
        self.rangeOf = rangeOf
    }

    public var status: Int { kind.status }
    public var description: String { "\(status) \(kind.rawValue): \(reason)" }

    /// The same refusal, answered to an operator's or analyst's API call: no cross-origin
    /// header, and `no-store` unless `cache` says otherwise.
    public func forOperators(cache: CachePolicy = .noStore) -> Refusal {
        Refusal(kind, reason, retryAfter: retryAfter, cache: cache, audience: .operators, realm: realm, rangeOf: rangeOf)
    }
}

extension Refusal {
    // The refusals more than one route gives, worded once.

    public static func noSuchStream(_ name: String) -> Refusal { Refusal(.noSuchStream, "no stream named '\(name)'") }

    /// `name` nil: the live table's wording, where the URL already names the stream.
    public static func streamRemoved(_ name: String?) -> Refusal {
        Refusal(.streamRemoved, name.map { "stream '\($0)' was removed" } ?? "stream was removed")
    }

    public static func noSuchVariant(_ variant: String, of stream: String, has variants: [String]? = nil) -> Refusal {
        Refusal(.noSuchVariant, "stream '\(stream)' has no variant '\(variant)'" + (variants.map { "; it has \($0.joined(separator: ", "))" } ?? ""))
    }

    public static func malformed(_ reason: String) -> Refusal { Refusal(.malformedRequest, reason) }

    /// A segment's `Range` that starts at or past its end; cached like the segment, which never changes.
    public static func rangeNotSatisfiable(size: Int) -> Refusal {
        Refusal(.rangeNotSatisfiable, "range not satisfiable", cache: .segment, rangeOf: size)
    }

    /// The stream lookup every route shares: 404 for a name no stream has, 410 for a removed
    /// stream, nil (go on) otherwise. `phase`: the stream's, nil when there is none.
    public static func lookUp(stream name: String, phase: StatusPolicy.StreamPhase?, naming: Bool = true) -> Refusal? {
        guard let phase else { return .noSuchStream(name) }
        return phase == .removed ? .streamRemoved(naming ? name : nil) : nil
    }
}

extension Refusal {
    /// A part (or a playlist listing it) still not made after its hold: 503, never cached.
    public static func partNotReady(sequence: Int, part: Int, waited: Double) -> Refusal {
        Refusal(.partNotReady, "part \(part) of segment \(sequence) was not made within \(DecimalFormatting.plain(waited)) s; reload the playlist")
    }
}
