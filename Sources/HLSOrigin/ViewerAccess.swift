import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import OriginAccess
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
    /// limit. Set only by the gate: one a client sends is removed first.
    static let variantLimitHeader = HTTPField.Name("X-Sideline-Variant-Limit")!
    /// The URL an edge cache asks `/api/access` about (its `auth_request` subrequest).
    static let originalURIHeader = HTTPField.Name("X-Original-URI")!
    /// How a request that passed the gate was let in, for its log line: `url` (a credential in
    /// the path, which the log does not show) or `bearer`. Set only by the gate.
    static let grantHeader = HTTPField.Name("X-Sideline-Access")!

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
        let verdict = gate.check(target: target, authorization: authorization, now: wallClock())
        if case let .refuse(refusal) = verdict { (refusal.kind == .forbidden ? forbidden : unauthorized).increment() }
        return verdict
    }
}

extension ViewerAccess {
    /// The gate in front of the router: refusals are answered here; a request whose URL
    /// carried its credential (`/access/<credential>/...`) goes on with the prefix taken off,
    /// so the routes see the same paths as without access control. In front of the router,
    /// not a middleware in it: Hummingbird picks a request's route before its middleware runs,
    /// so a rewritten path must be rewritten before the router sees it.
    func guarding(_ responder: @escaping HTTPChannelHandler.Responder, logger: Logger) -> HTTPChannelHandler.Responder {
        { request, writer, channel in
            let spoofed = request.headers[Self.variantLimitHeader] != nil || request.headers[Self.grantHeader] != nil
            switch check(target: request.head.path ?? "/", authorization: request.headers[.authorization]) {
            case let .refuse(refusal):
                let requestID = RequestID.take(request.headers[RequestID.header])
                let answer = refusal.response(requestID: requestID)
                if logger.logLevel <= .debug {
                    logger.debug("Request", metadata: ["hb.request.method": "\(request.method)", "hb.request.path": "\(OriginFastResponder.logged(request.head.path ?? ""))",
                                                       "http.status": "\(answer.status.code)", "request.id": "\(requestID)"])
                }
                var headers = answer.headers
                headers[.contentLength] = String(answer.body.readableBytes)
                let body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: answer.body)
                try await writer.write(response: HTTPResponse(status: answer.status, headerFields: headers), body: body)
            case .pass(nil, nil) where !spoofed:
                try await responder(request, writer, channel)
            case let .pass(target, variant):
                var head = request.head
                head.headerFields[Self.grantHeader] = Self.grant(target: head.path ?? "", authorization: request.headers[.authorization])
                if let target { head.path = target }
                head.headerFields[Self.variantLimitHeader] = variant
                try await responder(Request(head: head, body: request.body), writer, channel)
            }
        }
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
            OriginFastResponder.log(headers, of: request.headers, to: &metadata)
            context.logger.log(level: level, "Request", metadata: metadata)
        }
        return response
    }
}
