import HTTPTypes
import NIOCore
import OriginPolicy

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
}

/// What a decision becomes on the wire, built without I/O, so the Hummingbird route
/// (`OriginRoutes`) and the event-loop fast path (`OriginFastPath`) send the same status,
/// headers and bytes for the same request. Only two answers need more than this: a segment
/// whose bytes are not in memory yet, and a blocking reload that must wait.
enum OriginAnswer: Sendable {
    case ready(OriginResponse)
    /// A listed segment: `response(with:)` once its bytes are at hand (the whole file).
    case segment(SegmentAnswer)
    case hold(OriginDecision.Hold)

    struct SegmentAnswer: Sendable {
        let file: StreamRegistry.SegmentFile
        let range: ClosedRange<Int>?
        let headers: HTTPFields

        /// 200 with the whole file, or 206 with a slice that shares the buffer's storage.
        func response(with bytes: ByteBuffer) -> OriginResponse {
            guard let range else { return OriginResponse(status: .ok, headers: headers, body: bytes) }
            var headers = headers
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(file.size)"
            let slice = bytes.getSlice(at: bytes.readerIndex + range.lowerBound, length: range.count) ?? ByteBuffer()
            return OriginResponse(status: .partialContent, headers: headers, body: slice)
        }
    }

    init(_ decision: OriginDecision, request: OriginRequest) {
        var headers: HTTPFields = [.accessControlAllowOrigin: "*"]
        switch decision {
        case let .playlist(playlist, cache):
            // Compressed once per version; chosen per request by Accept-Encoding, and 304 when
            // the client's copy is this version (If-None-Match).
            let negotiated = PlaylistNegotiation(playlist, acceptEncoding: request.acceptEncoding, ifNoneMatch: request.ifNoneMatch)
            headers[.cacheControl] = cache.headerValue
            headers[.eTag] = negotiated.etag
            headers[.vary] = "Accept-Encoding"
            if negotiated.notModified {
                self = .ready(OriginResponse(status: .notModified, headers: headers, body: ByteBuffer()))
                return
            }
            headers[.contentType] = OriginRoutes.playlistContentType
            if negotiated.gzip, let compressed = playlist.gzip {
                headers[.contentEncoding] = "gzip"
                self = .ready(OriginResponse(status: .ok, headers: headers, body: compressed))
            } else {
                self = .ready(OriginResponse(status: .ok, headers: headers, body: playlist.plain))
            }
        case let .segment(file):
            headers[.contentType] = OriginRoutes.segmentContentType
            headers[.cacheControl] = CachePolicy.segment.headerValue
            headers[.acceptRanges] = "bytes"
            switch ByteRangeRequest(header: request.range, size: file.size) {
            case .whole:
                self = .segment(SegmentAnswer(file: file, range: nil, headers: headers))
            case let .partial(range):
                self = .segment(SegmentAnswer(file: file, range: range, headers: headers))
            case .unsatisfiable:
                self = .ready(Refusal.rangeNotSatisfiable(size: file.size).response)
            }
        case let .refuse(refusal):
            self = .ready(refusal.response)
        case let .hold(hold):
            self = .hold(hold)
        }
    }
}
