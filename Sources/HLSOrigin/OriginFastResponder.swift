import HTTPTypes
import Logging
import NIOCore
import OriginAccess
import OriginConnections
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineCore

/// Answers a `/live/` request without leaving the event loop when its answer is already in
/// memory: every playlist form (full, delta, gzip, 304), a blocking-reload request that need
/// not wait, every refusal, and a segment in the segment cache. That is nearly every request a
/// live audience makes. Everything else is nil and goes to the router as before: segments
/// to read from disk, blocking reloads to hold, the API, admin and metrics routes, and every
/// request while the server drains or is over its connection limit. `OriginWire` calls it
/// with each simple request read from the socket's bytes.
///
/// Why: through the router, a request crosses from the event loop to a Swift task and back
/// (NIOAsyncChannel), and that crossing costs a large share of a small playlist request's
/// server CPU (Docs/benchmarks.md, "Serving", measured by `scripts/bench/run serve`
/// with and without `FAST_PATH=0`). The answer is the same either way: both paths build it
/// with `OriginDecision` and `OriginAnswer`.
///
/// In two steps, `prepare` and `finish`, so that a request the connection's books then refuse
/// (`CredentialThrottling`'s 429) is neither counted nor observed as answered: `prepare` has
/// no effect outside its result.
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

    /// An answer prepared and not yet counted, logged or observed (`finish`).
    struct Prepared {
        var response: OriginResponse
        let head: HTTPRequest
        /// The target as the log shows it (an access credential taken off).
        let logPath: String
        let requestID: String
        let grant: String?
        /// What CMCD observes and CMSD annotates; nil for a refusal by the gate.
        let observed: (path: Result<OriginPath, OriginPath.Rejection>, decision: OriginDecision, query: String?, live: Bool)?
    }

    /// The answer to `head` when it is in memory; nil: the router's. No effect outside the result.
    func prepare(_ head: HTTPRequest) -> Prepared? {
        guard head.method == .get || head.method == .head, var target = head.path, admission.isServingFreely else { return nil }
        // `Connection: close` is honoured by the router's loop; so few clients send it that it
        // is not worth a second implementation here.
        if let connection = head.headerFields[.connection], connection.lowercased().contains("close") { return nil }
        let requestID = RequestID.take(head.headerFields[RequestID.header])
        // The same judgement as the gate in front of the router: on the canonical path
        // (`RequestTarget`), so every spelling of a file is judged and answered as that file.
        // Internal headers a client sent (`ViewerAccess.internalPrefix`) are never read here.
        let sent = target
        let judgement = ViewerAccess.judge(access, target: sent, authorization: head.headerFields[.authorization])
        let variantLimit: String?
        switch judgement.verdict {
        case let .refuse(refusal):
            // The canonical form in the log: a credential in any spelling is where the log's redaction looks.
            return Prepared(response: refusal.response(requestID: requestID, audience: judgement.audience), head: head, logPath: judgement.canonical ?? sent,
                            requestID: requestID, grant: nil, observed: nil)
        case let .pass(rewritten, limit):
            target = rewritten ?? target
            variantLimit = limit
        }
        guard target.utf8.starts(with: "/live/".utf8) else { return nil }
        // A master fetched with a URL credential lists its backups with it: made in the router.
        if BackupCredential.credential(in: judgement.canonical ?? sent) != nil, target.prefix(while: { $0 != "?" }).hasSuffix("/master.m3u8") { return nil }
        let grant = access == nil ? nil : ViewerAccess.grant(target: judgement.canonical ?? sent, authorization: head.headerFields[.authorization])
        let query = target.utf8.firstIndex(of: UInt8(ascii: "?"))
        let request = OriginRequest(
            path: String(target[..<(query ?? target.endIndex)]), query: query.map { String(target[target.index(after: $0)...]) },
            acceptEncoding: head.headerFields[.acceptEncoding], ifNoneMatch: head.headerFields[.ifNoneMatch], range: head.headerFields[.range],
            requestID: requestID, variantLimit: variantLimit, audience: judgement.audience
        )
        let path = OriginPath.parse(request.path)
        let described = OriginDecision.decideTimed(path, directives: PlaylistDirectives.parse(query: request.query), variantLimit: variantLimit, registry: registry, policy: policy)
        var response: OriginResponse
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
        return Prepared(response: response, head: head, logPath: target, requestID: requestID, grant: grant,
                        observed: (path, described.decision, request.query, described.live))
    }

    /// The prepared answer as sent: counted, observed by CMCD, annotated with CMSD, logged.
    /// `Content-Length`, `Date` and `Server` are the writer's (`OriginWire.head`).
    /// `peer`: the connection's, for the log's `client` behind a trusted edge.
    func finish(_ prepared: Prepared, peer: SocketAddress? = nil) -> OriginResponse {
        var response = prepared.response
        if let diagnostics, let observed = prepared.observed {
            diagnostics.observe(observed.path, decision: observed.decision, query: observed.query, headers: prepared.head.headerFields)
            diagnostics.annotate(&response, decision: observed.decision, live: observed.live)
        }
        admission.countFastAnswer()
        if logger.logLevel <= .debug {
            var metadata: Logger.Metadata = ["hb.request.method": "\(prepared.head.method)", "hb.request.path": "\(Self.logged(prepared.logPath))", "sideline.fast_path": "true",
                                             "http.status": "\(response.status.code)", "request.id": "\(prepared.requestID)"]
            metadata["access"] = prepared.grant.map { "\($0)" }
            let proxies = admission.limits.trustedProxies
            if !proxies.isEmpty, case let .forwarded(client) = proxies.client(peer: peer?.addressBytes, forwardedFor: prepared.head.headerFields[RequestClient.forwardedForHeader]) {
                metadata["client"] = "\(client)"
            }
            Self.log(logHeaders, of: prepared.head.headerFields, to: &metadata)
            logger.debug("Request", metadata: metadata)
        }
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
