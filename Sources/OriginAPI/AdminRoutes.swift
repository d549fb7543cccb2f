import Foundation
import HLSOrigin
import Hummingbird
import NIOCore
import OriginPolicy

/// What the admin API can ask of the streams. StreamServices implements it on top of the
/// pipelines; this module never sees them (it does not import MediaPipeline). Each refuses
/// with a `Refusal` for the operator (`Refusal.admin...`).
public protocol StreamOperations: Sendable {
    /// Makes the variant's encoder fail now, and its recovery fail for `seconds` (nil: until
    /// the pipeline restarts) (drill).
    func failVariant(stream: String, variant: String, seconds: Double?) throws(Refusal)
    /// Makes the stream's input thread stop reading for `seconds` (drill).
    func stall(stream: String, seconds: Double) throws(Refusal)
    /// Cuts the stream's live input and keeps it down for `seconds` (drill).
    func cutInput(stream: String, seconds: Double) throws(Refusal)
    /// Ends the stream: its last segment is written and EXT-X-ENDLIST closes its playlists.
    func endStream(stream: String) throws(Refusal)
    /// Removes the stream for good: 410 from now on (also after a restart), its recording deleted.
    func removeStream(stream: String) throws(Refusal)
}

extension Refusal {
    // The admin API's refusals, for the operator's shell: no CORS, never stored.

    public static func adminUnknownStream(_ name: String) -> Refusal { Refusal.noSuchStream(name).forOperators() }
    public static func adminUnknownVariant(_ name: String, of stream: String) -> Refusal { Refusal.noSuchVariant(name, of: stream).forOperators() }
    public static func adminStreamRemoved(_ name: String) -> Refusal { Refusal.streamRemoved(name).forOperators() }
    /// 409: the stream's state does not allow the operation now; `reason` says what to do.
    public static func adminConflict(_ reason: String) -> Refusal { Refusal(.conflict, reason, audience: .operators) }
}

/// `/admin/...`: the operator's API. Present only when a token is configured; every request
/// must carry it as `Authorization: Bearer <token>` (401 without it or with a wrong one).
/// Drills answer 403 unless `admin.drills` is on.
public struct AdminRoutes: Sendable {
    let token: String
    let drillsEnabled: Bool
    let operations: any StreamOperations

    public init(token: String, drillsEnabled: Bool, operations: any StreamOperations) {
        self.token = token
        self.drillsEnabled = drillsEnabled
        self.operations = operations
    }

    public func add<Context: RequestContext>(to router: Router<Context>) {
        let group = router.group("admin").add(middleware: OperatorTokenMiddleware(check: .admin(token, for: "admin requests")))
        group.post("streams/:stream/end") { _, context in
            Self.answer { () throws(Refusal) in
                let stream = try context.parameters.require("stream")
                try operations.endStream(stream: stream)
                return "stream '\(stream)' is ending: its last segment is written, then EXT-X-ENDLIST"
            }
        }
        group.delete("streams/:stream") { _, context in
            Self.answer { () throws(Refusal) in
                let stream = try context.parameters.require("stream")
                try operations.removeStream(stream: stream)
                return "stream '\(stream)' is removed: 410 from now on; its recording is being deleted"
            }
        }
        group.post("streams/:stream/variants/:variant/fail") { request, context in
            try drill { () throws(Refusal) in
                let stream = try context.parameters.require("stream")
                let variant = try context.parameters.require("variant")
                // Without `seconds` the variant stays failed until the pipeline restarts.
                let seconds = request.uri.queryParameters["seconds"] == nil ? nil : try Self.seconds(in: request)
                try operations.failVariant(stream: stream, variant: variant, seconds: seconds)
                return "variant '\(variant)' of stream '\(stream)' is failing" + (seconds.map { " and recovers after \($0) s" } ?? " until the pipeline restarts")
            }
        }
        addTimedDrill("stall", to: group) { stream, seconds throws(Refusal) in
            try operations.stall(stream: stream, seconds: seconds)
            return "stream '\(stream)' stalls for \(seconds) s"
        }
        addTimedDrill("cut", to: group) { stream, seconds throws(Refusal) in
            try operations.cutInput(stream: stream, seconds: seconds)
            return "input of stream '\(stream)' is cut for \(seconds) s"
        }
    }

    /// `POST /admin/streams/{stream}/<name>?seconds=N`: a drill on a whole stream that lasts N s.
    private func addTimedDrill<Context: RequestContext>(_ name: String, to group: RouterGroup<Context>,
                                                       _ perform: @escaping @Sendable (String, Double) throws(Refusal) -> String) {
        group.post("streams/:stream/\(name)") { request, context in
            try drill { () throws(Refusal) in
                try perform(try context.parameters.require("stream"), try Self.seconds(in: request))
            }
        }
    }

    /// The `seconds` query parameter of a drill: how long it lasts (10 when not given).
    private static func seconds(in request: Request) throws(Refusal) -> Double {
        let text = request.uri.queryParameters["seconds"].map(String.init) ?? "10"
        guard let seconds = Double(text), seconds > 0, seconds <= 600 else {
            throw Refusal(.malformedRequest, "seconds must be a number from 0 to 600, not '\(text)'", audience: .operators)
        }
        return seconds
    }

    /// Runs a drill if drills are enabled; answers 202 (the failure happens on the pipeline's
    /// threads, just after) or the refusal.
    private func drill(_ body: () throws(Refusal) -> String) throws -> Response {
        guard drillsEnabled else {
            return Response(Refusal(.forbidden, "drills are disabled; set admin.drills: true in the config to rehearse failures", audience: .operators))
        }
        return Self.answer(body)
    }

    /// 202 with the operation's sentence, or the refusal.
    private static func answer(_ body: () throws(Refusal) -> String) -> Response {
        do {
            return text(202, try body())
        } catch {
            return Response(error)
        }
    }

    /// An answer that is not a refusal (202 and the sentence), as plain text for a shell.
    static func text(_ status: Int, _ message: String) -> Response {
        Response(status: .init(code: status), headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}

extension Parameters {
    /// A route parameter that the route's pattern guarantees.
    fileprivate func require(_ name: String) throws(Refusal) -> String {
        guard let value = self.get(name) else { throw Refusal(.malformedRequest, "missing \(name)", audience: .operators) }
        return value
    }
}

/// Lets a request through when `check` finds an operator's token on it; answers its refusal
/// (401 with `WWW-Authenticate: Bearer`, or 403 when no token is configured) otherwise.
struct OperatorTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let check: OperatorToken

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = check.refusal(authorization: request.headers[.authorization]) { return Response(refusal) }
        return try await next(request, context)
    }
}
