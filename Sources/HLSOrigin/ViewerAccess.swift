import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import OriginAccess
import OriginConnections
import OriginPolicy

/// The origin's side of viewer access (`AccessGate`): the gate, the wall clock signed URLs
/// expire by, and the count of refusals in `/metrics`
/// (`sideline_access_refused_total{status="401"|"403"}`). Both of the origin's paths ask it
/// before anything else: the fast path (`OriginFastResponder`) and the router
/// (`ViewerAccessMiddleware`).
public struct ViewerAccess: Sendable {
    public let gate: AccessGate
    let wallClock: @Sendable () -> Double
    private let unauthorized = Counter(label: "sideline_access_refused_total", dimensions: [("status", "401")])
    private let forbidden = Counter(label: "sideline_access_refused_total", dimensions: [("status", "403")])

    public init(rules: AccessRules, wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        gate = AccessGate(rules: rules)
        self.wallClock = wallClock
    }

    /// The header through which the router's gate tells the routes of a credential's variant
    /// limit. Set only by the gate: one a client sends is removed first (`internalPrefix`).
    static let variantLimitHeader = HTTPField.Name("X-Sideline-Variant-Limit")!
    /// The URL an edge cache asks `/api/access` about (its `auth_request` subrequest).
    static let originalURIHeader = HTTPField.Name("X-Original-URI")!
    /// How a request that passed the gate was let in, for its log line: `url` (a credential in
    /// the path, which the log does not show) or `bearer`. Set only by the gate.
    static let grantHeader = HTTPField.Name("X-Sideline-Access")!
    /// The credential of a request that carried it in its URL, for the master's backup URIs
    /// (`BackupCredential`). Set only by the gate.
    static let credentialHeader = HTTPField.Name("X-Sideline-Credential")!
    /// Present when the request is about a private stream: its answer is then marked for the
    /// viewer's own cache only (`CacheAudience.credentialHolders`). Set only by the gate.
    static let privateHeader = HTTPField.Name("X-Sideline-Private")!
    /// What `/api/access` tells an edge beside its 204: the canonical path it judged without
    /// the credential (the edge's cache key) and with it (what the edge asks the origin for).
    static let resourceHeader = HTTPField.Name("X-Sideline-Resource")!
    static let targetHeader = HTTPField.Name("X-Sideline-Target")!
    /// Every request header whose name starts with this is the origin's own: the gate in front
    /// of the router removes all of them from what a client sent, and the fast path reads none,
    /// so no client can claim a variant limit, a grant or an audience. Nothing the edge sends
    /// needs one either: it passes the viewer's own URL and `Authorization`, and the origin
    /// works the limit out from them again.
    static let internalPrefix = "x-sideline-"

    /// The variant limit the gate found in the request's credential (never a client's own
    /// header: those are removed before any route runs). For routes of other modules (clips).
    public static func variantLimit(of request: Request) -> String? { request.headers[variantLimitHeader] }

    /// `/access/<credential>` when the request carried its credential in its URL, else "": for
    /// a request this box passes on to another box of the venue (a set's clip), which judges
    /// the same credential by the same rules.
    public static func pathPrefix(of request: Request) -> String {
        request.headers[credentialHeader].map { AccessGate.prefix + $0 } ?? ""
    }

    /// `url`, `bearer` or nil (nothing offered), for the log line.
    static func grant(target: String, authorization: String?) -> String? {
        target.hasPrefix(AccessGate.prefix) ? "url" : authorization != nil ? "bearer" : nil
    }

    /// `/access/<credential>` for the URLs of a private stream handed to a viewer who may
    /// watch it (the page's); "" for an open stream.
    public func urlPrefix(for stream: String) -> String {
        gate.rules.viewerCredential(for: stream, now: wallClock()).map { AccessGate.prefix + $0 } ?? ""
    }

    func check(target: String, authorization: String?) -> AccessGate.Verdict {
        judge(target: target, authorization: authorization).verdict
    }

    func judge(target: String, authorization: String?) -> AccessGate.Judgement {
        let judgement = gate.judge(target: target, authorization: authorization, now: wallClock())
        if case let .refuse(refusal) = judgement.verdict, refusal.kind == .forbidden || refusal.kind == .unauthorized {
            (refusal.kind == .forbidden ? forbidden : unauthorized).increment()
        }
        return judgement
    }

    /// The gate's judgement, or without access control the path's normalisation alone.
    static func judge(_ access: ViewerAccess?, target: String, authorization: String?) -> AccessGate.Judgement {
        access?.judge(target: target, authorization: authorization) ?? AccessGate.open.judge(target: target, authorization: nil, now: 0)
    }
}

extension AccessGate {
    /// The gate of a server with no private stream: it only normalises.
    static let open = AccessGate(rules: AccessRules())
}

/// Whose cache may keep the answers built in this task: set for the whole of a request's
/// handling in the router (`RequestAudienceMiddleware`, from what the gate found), so every
/// refusal a route builds or throws (`Refusal.response`) is marked as its stream allows.
public enum RequestAudience {
    @TaskLocal public static var current: CacheAudience = .everyone
}

/// The router's outermost middleware: `RequestAudience.current` for the request, from the
/// gate's own header (`ViewerAccess.privateHeader`), which no client can send; and, for a
/// private stream, every answer a route marked for everyone (the APIs' JSON: a private
/// stream's markers) restricted to the viewer's cache, so none is left `public` or without
/// `Vary: Authorization`.
struct RequestAudienceMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[ViewerAccess.privateHeader] != nil else { return try await next(request, context) }
        let audience = CacheAudience.credentialHolders
        var response = try await RequestAudience.$current.withValue(audience) { try await next(request, context) }
        response.headers[.cacheControl] = response.headers[.cacheControl].map(audience.restricting)
        response.headers[.vary] = audience.vary(adding: response.headers[.vary])
        return response
    }
}

extension ViewerAccess {
    /// The gate in front of the router, on every request whether or not any stream is private:
    /// the client's own internal headers (`internalPrefix`) are removed; the path is
    /// normalised (`RequestTarget`: a path that cannot be is refused here); with access
    /// control, refusals are answered here and a request whose URL carried its credential
    /// (`/access/<credential>/...`) goes on with the prefix taken off. The routes see the
    /// canonical path, so they answer exactly what was judged. In front of the router, not a
    /// middleware in it: Hummingbird picks a request's route before its middleware runs, so a
    /// rewritten path must be rewritten before the router sees it.
    /// `proxies`: the trusted edges (`RequestClient`), whose X-Forwarded-For names the client
    /// every later rule and the request log count.
    static func guarding(_ responder: @escaping HTTPChannelHandler.Responder, access: ViewerAccess?, logger: Logger,
                         proxies: TrustedProxies = TrustedProxies(), clients: ClientConnections? = nil) -> HTTPChannelHandler.Responder {
        let guarded = guardingAccess(responder, access: access, logger: logger)
        return { request, writer, channel in
            let client = RequestClient(peer: channel.remoteAddress, forwardedFor: proxies.isEmpty ? nil : request.headers[RequestClient.forwardedForHeader], proxies: proxies,
                                       connection: ObjectIdentifier(channel), clients: clients)
            // The writer cannot be copied into the closure: it is moved in through an optional.
            var moved = Optional(writer)
            try await RequestClient.$current.withValue(client) {
                guard let writer = moved.take() else { return }
                try await guarded(request, writer, channel)
            }
        }
    }

    private static func guardingAccess(_ responder: @escaping HTTPChannelHandler.Responder, access: ViewerAccess?, logger: Logger) -> HTTPChannelHandler.Responder {
        { request, writer, channel in
            let sent = request.head.path ?? "/"
            let judgement = judge(access, target: sent, authorization: request.headers[.authorization])
            let spoofed = request.headers.contains { $0.name.canonicalName.hasPrefix(internalPrefix) }
            switch judgement.verdict {
            case let .refuse(refusal):
                let requestID = RequestID.take(request.headers[RequestID.header])
                let answer = refusal.response(requestID: requestID, audience: judgement.audience)
                if logger.logLevel <= .debug {
                    logger.debug("Request", metadata: ["hb.request.method": "\(request.method)", "hb.request.path": "\(OriginFastResponder.logged(judgement.canonical ?? sent))",
                                                       "http.status": "\(answer.status.code)", "request.id": "\(requestID)"])
                }
                let written = answer.written(forHEAD: request.method == .head)
                try await writer.write(response: written.head, body: written.body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
            case .pass(nil, nil) where !spoofed && judgement.audience == .everyone:
                try await responder(request, writer, channel)
            case let .pass(target, variant):
                var head = request.head
                head.headerFields = HTTPFields(head.headerFields.filter { !$0.name.canonicalName.hasPrefix(internalPrefix) })
                head.headerFields[grantHeader] = grant(target: judgement.canonical ?? sent, authorization: request.headers[.authorization])
                head.headerFields[credentialHeader] = BackupCredential.credential(in: judgement.canonical ?? sent).map(String.init)
                if let target { head.path = target }
                head.headerFields[variantLimitHeader] = variant
                if judgement.audience == .credentialHolders { head.headerFields[privateHeader] = "1" }
                try await responder(Request(head: head, body: request.body), writer, channel)
            }
        }
    }

    /// `GET /api/access`: the gate's verdict on another URL (`X-Original-URI`), for an edge
    /// cache in front (nginx's auth_request, Config/nginx/sideline-edge-private.conf): 204, or
    /// the 401/403 the URL itself would get. The 204 names what was judged: the canonical path
    /// without its credential (`X-Sideline-Resource`, the edge's cache key) and with it
    /// (`X-Sideline-Target`, what the edge asks the origin for), so the edge never keys, asks
    /// or serves under another spelling than the one judged. A URL that cannot be normalised
    /// gets a 204 with its path as sent for `X-Sideline-Target` and no `X-Sideline-Resource`:
    /// the edge asks the origin for it, gets its 400 and stores it nowhere (a subrequest that
    /// answered 400 itself would reach the viewer as nginx's 500).
    static func edgeQuestion(_ request: Request, access: ViewerAccess?) -> Response {
        let target = request.headers[originalURIHeader] ?? "/"
        let judgement = judge(access, target: target, authorization: request.headers[.authorization])
        var headers: HTTPFields = [.cacheControl: CachePolicy.noStore.headerValue]
        switch judgement.verdict {
        case let .refuse(refusal) where refusal.kind == .unauthorized || refusal.kind == .forbidden:
            return Response(refusal.response(requestID: RequestID.current, audience: judgement.audience))
        case .refuse:
            headers[targetHeader] = RequestTarget.pathAsSent(target)
        case .pass:
            // Paths only: the edge adds the query as the viewer sent it, as the origin keeps it.
            let path = { (target: String) in String(target[..<(target.firstIndex(of: "?") ?? target.endIndex)]) }
            headers[resourceHeader] = judgement.resource.map(path)
            headers[targetHeader] = judgement.canonical.map(path)
        }
        return Response(status: .noContent, headers: headers)
    }
}

/// Gives every request its `X-Request-ID` (`RequestID`): in the task's `RequestID.current`,
/// so every refusal a route builds carries it, and on the response. An error a route throws
/// becomes its answer here, so the ID is on that too; one that is not an HTTP error is a 500
/// whose body names the ID.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = RequestID.take(request.headers[RequestID.header])
        var response: Response
        do {
            response = try await RequestID.$current.withValue(id) { try await next(request, context) }
        } catch let refusal as Refusal {
            response = Response(refusal.response(requestID: id))
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            context.logger.error("request failed", metadata: ["request.id": "\(id)", "error": "\(error)"])
            // The error's text (file paths, a library's internals) stays in the log line above.
            response = Response(Refusal(.internalError, "the server failed to answer; its log has the details under request ID \(id)").response(requestID: id))
        }
        response.headers[RequestID.header] = id
        return response
    }
}

/// One log line per request (debug level, as Hummingbird's was): method, path (without an
/// access credential: the log does not keep secrets), status, the request's ID, how it was let
/// in (`access`), and the request headers the config asks for (`server.log_headers`: a
/// player's session ID, its User-Agent...), credentials redacted (`OriginFastResponder.log`).
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let level: Logger.Level
    let headers: [HTTPField.Name]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        if context.logger.logLevel <= level {
            var metadata: Logger.Metadata = ["hb.request.method": "\(request.method)", "hb.request.path": "\(OriginFastResponder.logged(request.head.path ?? ""))",
                                             "http.status": "\(response.status.code)"]
            metadata["request.id"] = response.headers[RequestID.header].map { "\($0)" }
            metadata["access"] = request.headers[ViewerAccess.grantHeader].map { "\($0)" }
            // Behind a trusted edge, the player it names (`server.trusted_proxies`).
            if let client = RequestClient.current, client.isForwarded { metadata["client"] = "\(client.key)" }
            OriginFastResponder.log(headers, of: request.headers, to: &metadata)
            context.logger.log(level: level, "Request", metadata: metadata)
        }
        return response
    }
}
