import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes
import OriginAccess
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineCore

/// Answers a `/live/` request without leaving the event loop when its answer is already in
/// memory: every playlist form (full, delta, gzip, 304), a blocking-reload request that need
/// not wait, every refusal, and a segment in the segment cache. That is nearly every request a
/// live audience makes. Everything else returns nil and goes to the router as before: segments
/// to read from disk, blocking reloads to hold, the API, admin and metrics routes, and every
/// request while the server drains or is over its connection limit.
///
/// Why: through the router, a request crosses from the event loop to a Swift task and back
/// (NIOAsyncChannel), and that crossing costs a large share of a small playlist request's
/// server CPU (Docs/benchmarks.md, "Serving", measured by `scripts/bench/run serve`
/// with and without `FAST_PATH=0`). The answer is the same either way: both paths build it
/// with `OriginDecision` and `OriginAnswer`.
struct OriginFastResponder: Sendable {
    let registry: StreamRegistry
    let policy: StatusPolicy
    let segments: SegmentCache
    let admission: AdmissionControl
    let serverName: String
    let logger: Logger
    /// Viewer access control; nil when no stream is private.
    let access: ViewerAccess?
    /// Request headers the log line carries (`server.log_headers`).
    let logHeaders: [HTTPField.Name]
    /// CMCD in, CMSD out; nil: off.
    let diagnostics: PlayerDiagnostics?

    func answer(_ head: HTTPRequest) -> OriginResponse? {
        guard head.method == .get || head.method == .head, var target = head.path, admission.isServingFreely else { return nil }
        // `Connection: close` is honoured by the router's loop; so few clients send it that it
        // is not worth a second implementation here.
        if let connection = head.headerFields[.connection], connection.lowercased().contains("close") { return nil }
        let requestID = RequestID.take(head.headerFields[RequestID.header])
        var response: OriginResponse
        // The same judgement as the gate in front of the router: on the canonical path
        // (`RequestTarget`), so every spelling of a file is judged and answered as that file.
        // Internal headers a client sent (`ViewerAccess.internalPrefix`) are never read here.
        let sent = target
        let judgement = ViewerAccess.judge(access, target: sent, authorization: head.headerFields[.authorization])
        let variantLimit: String?
        switch judgement.verdict {
        case let .refuse(refusal):
            // The canonical form in the log: a credential in any spelling is where the log's redaction looks.
            return finish(refusal.response(requestID: requestID, audience: judgement.audience), head: head, path: judgement.canonical ?? sent, requestID: requestID, grant: nil)
        case let .pass(rewritten, limit):
            target = rewritten ?? target
            variantLimit = limit
        }
        guard target.hasPrefix("/live/") else { return nil }
        // A master fetched with a URL credential lists its backups with it: made in the router.
        if BackupCredential.credential(in: judgement.canonical ?? sent) != nil, target.prefix(while: { $0 != "?" }).hasSuffix("/master.m3u8") { return nil }
        let grant = access == nil ? nil : ViewerAccess.grant(target: judgement.canonical ?? sent, authorization: head.headerFields[.authorization])
        let query = target.firstIndex(of: "?")
        let request = OriginRequest(
            path: String(target[..<(query ?? target.endIndex)]), query: query.map { String(target[target.index(after: $0)...]) },
            acceptEncoding: head.headerFields[.acceptEncoding], ifNoneMatch: head.headerFields[.ifNoneMatch], range: head.headerFields[.range],
            requestID: requestID, variantLimit: variantLimit, audience: judgement.audience
        )
        let path = OriginPath.parse(request.path)
        let described = OriginDecision.decideTimed(path, directives: PlaylistDirectives.parse(query: request.query), variantLimit: variantLimit, registry: registry, policy: policy)
        switch OriginAnswer(described.decision, request: request, timing: ServerTiming.playlist(publishedAgo: described.publishedAgo, held: nil)) {
        case let .ready(ready):
            response = ready
        case let .segment(segment):
            guard let bytes = segments.cachedBytes(of: segment.file.path) else { return nil }
            response = segment.response(with: bytes)
            response.headers[ServerTiming.header] = ServerTiming.cacheHit
        case .hold:
            return nil
        }
        if let diagnostics {
            diagnostics.observe(path, decision: described.decision, query: request.query, headers: head.headerFields)
            diagnostics.annotate(&response, decision: described.decision, live: described.live)
        }
        return finish(response, head: head, path: target, requestID: requestID, grant: grant)
    }

    /// `path`: the target as the log shows it (an access credential taken off).
    private func finish(_ answer: OriginResponse, head: HTTPRequest, path: String, requestID: String, grant: String?) -> OriginResponse {
        var response = answer
        admission.countFastAnswer()
        if logger.logLevel <= .debug {
            var metadata: Logger.Metadata = ["hb.request.method": "\(head.method)", "hb.request.path": "\(Self.logged(path))", "sideline.fast_path": "true",
                                             "http.status": "\(response.status.code)", "request.id": "\(requestID)"]
            metadata["access"] = grant.map { "\($0)" }
            Self.log(logHeaders, of: head.headerFields, to: &metadata)
            logger.debug("Request", metadata: metadata)
        }
        response.headers[.contentLength] = String(response.body.readableBytes)
        response.headers[.date] = HTTPDate.now
        response.headers[.server] = serverName
        return response
    }

    /// A target as the log shows it: every credential in it (an access prefix's, a `?token=`)
    /// redacted, also in a refused target (a wrong or expired credential is still one).
    static func logged(_ target: String) -> String { Redaction.url(target) }

    /// The configured request headers (`server.log_headers`) into a log line's metadata, each
    /// value as `Redaction` lets a log show it (no `Authorization`, `Cookie` or token).
    static func log(_ names: [HTTPField.Name], of fields: HTTPFields, to metadata: inout Logger.Metadata) {
        for name in names {
            if let value = fields[name] { metadata["request.header.\(name.canonicalName)"] = "\(Redaction.header(name: name.canonicalName, value: value))" }
        }
    }
}

/// The channel handler that puts `OriginFastResponder` in front of the router, one per
/// connection. It sits after Hummingbird's `HTTPConnectionStateHandler`, so idle timeouts and
/// graceful shutdown see every request and response, and before the channel's async side.
///
/// Order: HTTP/1.1 answers requests in the order they came (pipelining). Once a request is
/// passed to the router, every later request on the connection is passed on too until the
/// router's responses have ended, so a fast answer never overtakes a slow one.
final class OriginFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let responder: OriginFastResponder
    /// Requests passed to the router whose response has not ended yet.
    private var passedOn = 0
    /// The answer to the request being read, sent once its end arrives (a body is dropped).
    private var pending: (response: OriginResponse, headOnly: Bool)?

    init(responder: OriginFastResponder) {
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            if passedOn == 0, pending == nil, let response = responder.answer(head) {
                pending = (response, head.method == .head)
            } else {
                passedOn += 1
                context.fireChannelRead(data)
            }
        case .body:
            if pending == nil { context.fireChannelRead(data) }
        case .end:
            guard let (response, headOnly) = pending else {
                context.fireChannelRead(data)
                return
            }
            pending = nil
            context.write(wrapOutboundOut(.head(HTTPResponse(status: response.status, headerFields: response.headers))), promise: nil)
            if !headOnly, response.body.readableBytes > 0 {
                context.write(wrapOutboundOut(.body(response.body)), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn -= 1 }
        context.write(data, promise: promise)
    }
}
