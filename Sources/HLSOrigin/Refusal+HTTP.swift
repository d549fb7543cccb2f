import HTTPTypes
import Hummingbird
import NIOCore
import OriginPolicy

/// The one place a refusal of any route becomes HTTP: its kind's status, the reason as plain
/// text, the caching it allows, `Retry-After` when it has one, a `WWW-Authenticate` challenge
/// for `unauthorized`, `Content-Range` for `rangeNotSatisfiable`. Players' refusals carry
/// `Access-Control-Allow-Origin: *` like every answer they get; the operators' API calls do
/// not. The event-loop fast path sends these bytes as they are; the routes answer
/// `Response(refusal)`. Every refusal's body ends with the request's ID (`RequestID`).
extension Refusal {
    /// The refusal as sent, with the request's ID (`RequestID.current` in a route's task) in
    /// its header and as the body's last line.
    public var response: OriginResponse { response(requestID: RequestID.current) }

    /// `audience`: whose cache may keep it; a private stream's refusals are `private` and vary
    /// on `Authorization`, like its other answers. In a route's task, what the gate in front of
    /// the router found (`RequestAudience`); the fast path passes its own.
    public func response(requestID: String?, audience caching: CacheAudience = RequestAudience.current) -> OriginResponse {
        var headers: HTTPFields = [:]
        if audience == .players { headers[.accessControlAllowOrigin] = "*" }
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = cache.headerValue(for: caching)
        if let vary = caching.vary(adding: nil) { headers[.vary] = vary }
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if let realm { headers[.wwwAuthenticate] = "Bearer realm=\"\(realm)\"" }
        if let size = rangeOf {
            headers[.acceptRanges] = "bytes"
            headers[.contentRange] = "bytes */\(size)"
        }
        // No file paths in answers (`publicReason`).
        var body = publicReason + "\n"
        if let requestID {
            headers[RequestID.header] = requestID
            body += "request-id: \(requestID)\n"
        }
        return OriginResponse(status: .init(code: status), headers: headers, body: ByteBuffer(string: body))
    }
}

extension Response {
    public init(_ refusal: Refusal) {
        self.init(refusal.response)
    }

}

extension OriginResponse {
    /// The answer as written below the router, by the gate (`ViewerAccess.guarding`) and the
    /// credential throttle: its head with `Content-Length`, and its body unless the request was
    /// a HEAD (whose answer says the length and sends none).
    func written(forHEAD: Bool) -> (head: HTTPResponse, body: ByteBuffer?) {
        var fields = headers
        fields[.contentLength] = String(body.readableBytes)
        return (HTTPResponse(status: status, headerFields: fields), forHEAD ? nil : body)
    }
}
