import HTTPTypes
import NIOCore
import OriginPolicy
import OriginRegistry
import OriginState

/// A response as the origin sends it: status, headers and body bytes.
public struct OriginResponse: Sendable {
    public var status: HTTPResponse.Status
    public var headers: HTTPFields
    public var body: ByteBuffer
}

/// The parts of a request that shape the answer to a `/live/` path.
struct OriginRequest: Sendable {
    var path: String
    var query: String?
    var acceptEncoding: String?
    var ifNoneMatch: String?
    var range: String?
    /// `X-Request-ID` of the answer (`RequestID`); nil sends none.
    var requestID: String? = nil
    /// The one variant the request's credential covers (`AccessGate`), if limited.
    var variantLimit: String? = nil
    /// Whose cache may keep the answer: a private stream's answers are the viewer's alone.
    var audience: CacheAudience = .everyone
}

/// `Server-Timing` (W3C) values the origin sends, so a player's or a proxy's capture says
/// where the time went: for a playlist, how long ago its variant published its newest
/// segment (`publish`) and how long a blocking reload held the request (`hold`); for a
/// segment, whether it came from the segment cache (`cache;desc=hit`) or from disk
/// (`disk;dur=` the read). Milliseconds, one decimal.
enum ServerTiming {
    static let header = HTTPField.Name("Server-Timing")!

    /// Made on every playlist answer: joined by hand, no array.
    static func playlist(publishedAgo: Double?, held: Double?) -> String? {
        let published = publishedAgo.map { "publish;dur=" + milliseconds($0) + ";desc=\"since newest segment\"" }
        let hold = held.map { "hold;dur=" + milliseconds($0) }
        guard let published else { return hold }
        guard let hold else { return published }
        return published + ", " + hold
    }

    static let cacheHit = "cache;desc=hit"

    static func disk(seconds: Double) -> String { "disk;dur=\(milliseconds(seconds))" }

    static func milliseconds(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10_000).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// What a decision becomes on the wire, built without I/O, so the Hummingbird route
/// (`OriginRoutes`) and the fast path (`OriginWire`, `OriginFastResponder`) send the same status,
/// headers and bytes for the same request. Only two answers need more than this: a segment
/// whose bytes are not in memory yet, and a blocking reload that must wait.
enum OriginAnswer: Sendable {
    case ready(OriginResponse)
    /// A listed segment: `response(with:)` once its bytes are at hand (the whole file).
    case segment(SegmentAnswer)
    case hold(OriginDecision.Hold)

    // Fields every answer of their kind carries, made (and checked) once.
    static let everyOrigin = HTTPField(name: .accessControlAllowOrigin, value: "*")
    static let varyOnEncoding = HTTPField(name: .vary, value: "Accept-Encoding")
    static let playlistType = HTTPField(name: .contentType, value: OriginRoutes.playlistContentType)
    static let segmentType = HTTPField(name: .contentType, value: OriginRoutes.segmentContentType)
    static let gzipped = HTTPField(name: .contentEncoding, value: "gzip")
    static let byteRanges = HTTPField(name: .acceptRanges, value: "bytes")
    static let steeringType = HTTPField(name: .contentType, value: "application/json")
    /// `X-Accel-Expires` for an open part (`CachePolicy.edgeExpiry`): built once.
    static let openPartEdgeExpiry: HTTPField? = CachePolicy.openPart.edgeExpiry.flatMap { seconds in
        HTTPField.Name("X-Accel-Expires").map { HTTPField(name: $0, value: String(seconds)) }
    }

    struct SegmentAnswer: Sendable {
        let file: StreamRegistry.SegmentFile
        let range: ClosedRange<Int>?
        let headers: HTTPFields
        /// A part of the segment (Low-Latency HLS): these bytes of the file, answered 200.
        var part: Range<Int>? = nil

        /// 200 with the whole file (or the part), or 206 with a slice that shares the buffer's storage.
        func response(with bytes: ByteBuffer) -> OriginResponse {
            if let part {
                // The file is the part's segment as listed: a part past its end is a file that
                // changed under us, the server's fault.
                guard let slice = bytes.getSlice(at: bytes.readerIndex + part.lowerBound, length: part.count) else {
                    return Refusal(.internalError, "part \(part) of \(file.path) is past the file's \(bytes.readableBytes) bytes").response(requestID: nil, audience: .everyone)
                }
                return OriginResponse(status: .ok, headers: headers, body: slice)
            }
            guard let range else { return OriginResponse(status: .ok, headers: headers, body: bytes) }
            var headers = headers
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(file.size)"
            let slice = bytes.getSlice(at: bytes.readerIndex + range.lowerBound, length: range.count) ?? ByteBuffer()
            return OriginResponse(status: .partialContent, headers: headers, body: slice)
        }
    }

    /// `timing`: the playlist's `Server-Timing` (`ServerTiming.playlist`), if any.
    ///
    /// Each field is appended once, in a fixed order, rather than set by name: setting searches
    /// the fields first, and this runs on every request (Docs/benchmarks.md, "Issue 33").
    init(_ decision: OriginDecision, request: OriginRequest, timing: String? = nil) {
        var headers = HTTPFields()
        headers.reserveCapacity(12)
        headers.append(Self.everyOrigin)
        if let requestID = request.requestID { headers.append(HTTPField(name: RequestID.header, value: requestID)) }
        switch decision {
        case let .playlist(playlist, cache):
            // Compressed once per version; chosen per request by Accept-Encoding, and 304 when
            // the client's copy is this version (If-None-Match).
            let negotiated = PlaylistNegotiation(playlist, acceptEncoding: request.acceptEncoding, ifNoneMatch: request.ifNoneMatch)
            headers.append(HTTPField(name: .cacheControl, value: cache.headerValue(for: request.audience)))
            headers.append(HTTPField(name: .eTag, value: negotiated.etag))
            headers.append(request.audience == .everyone ? Self.varyOnEncoding : HTTPField(name: .vary, value: request.audience.vary(adding: "Accept-Encoding") ?? "Accept-Encoding"))
            if let timing { headers.append(HTTPField(name: ServerTiming.header, value: timing)) }
            if negotiated.notModified {
                self = .ready(OriginResponse(status: .notModified, headers: headers, body: ByteBuffer()))
                return
            }
            headers.append(Self.playlistType)
            if negotiated.gzip, let compressed = playlist.gzip {
                headers.append(Self.gzipped)
                self = .ready(OriginResponse(status: .ok, headers: headers, body: compressed))
            } else {
                self = .ready(OriginResponse(status: .ok, headers: headers, body: playlist.plain))
            }
        case let .segment(file):
            headers.append(Self.segmentType)
            headers.append(HTTPField(name: .cacheControl, value: CachePolicy.segment.headerValue(for: request.audience)))
            if let vary = request.audience.vary(adding: nil) { headers.append(HTTPField(name: .vary, value: vary)) }
            headers.append(Self.byteRanges)
            switch ByteRangeRequest(header: request.range, size: file.size) {
            case .whole:
                self = .segment(SegmentAnswer(file: file, range: nil, headers: headers))
            case let .partial(range):
                self = .segment(SegmentAnswer(file: file, range: range, headers: headers))
            case .unsatisfiable:
                self = .ready(Refusal.rangeNotSatisfiable(size: file.size).response(requestID: request.requestID, audience: request.audience))
            }
        case let .part(bytes):
            headers.append(Self.segmentType)
            // Kept a second, not a year (CachePolicy.openPart); once listed it is a range of the
            // file, immutable (`partOfFile`).
            headers.append(HTTPField(name: .cacheControl, value: CachePolicy.openPart.headerValue(for: request.audience)))
            if let expiry = Self.openPartEdgeExpiry { headers.append(expiry) }
            if let vary = request.audience.vary(adding: nil) { headers.append(HTTPField(name: .vary, value: vary)) }
            self = .ready(OriginResponse(status: .ok, headers: headers, body: bytes))
        case let .partOfFile(file, range):
            headers.append(Self.segmentType)
            headers.append(HTTPField(name: .cacheControl, value: CachePolicy.segment.headerValue(for: request.audience)))
            if let vary = request.audience.vary(adding: nil) { headers.append(HTTPField(name: .vary, value: vary)) }
            self = .segment(SegmentAnswer(file: file, range: nil, headers: headers, part: range))
        case let .steering(manifest, _):
            headers.append(Self.steeringType)
            headers.append(HTTPField(name: .cacheControl, value: CachePolicy.steeringManifest.headerValue(for: request.audience)))
            if let vary = request.audience.vary(adding: nil) { headers.append(HTTPField(name: .vary, value: vary)) }
            self = .ready(OriginResponse(status: .ok, headers: headers, body: manifest))
        case let .refuse(refusal):
            self = .ready(refusal.response(requestID: request.requestID, audience: request.audience))
        case let .hold(hold):
            self = .hold(hold)
        }
    }
}
