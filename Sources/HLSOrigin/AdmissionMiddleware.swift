import Hummingbird
import OriginConnections
import OriginPolicy

/// Answers 503 with Retry-After, before any route runs, while the server drains or is over
/// its limits (`StatusPolicy.admit`).
struct AdmissionMiddleware<Context: RequestContext>: RouterMiddleware {
    let control: AdmissionControl
    let policy: StatusPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let condition = control.enter()
        if let refusal = policy.admit(condition) { return Response(refusal) }
        defer { control.leave() }
        // A player behind a trusted edge: its requests in flight are its connections here.
        guard !control.limits.trustedProxies.isEmpty, let player = RequestClient.current?.forwardedKey else { return try await next(request, context) }
        guard control.forwarded.enter(player: player) else {
            let refusal = Refusal(.tooManyRequests, "this player already has \(control.forwarded.perPlayer ?? 0) requests in flight through the edge; "
                                  + "wait for one of them, then ask again", retryAfter: 1)
            return Response(refusal.response(requestID: RequestID.current))
        }
        defer { control.forwarded.leave(player: player) }
        return try await next(request, context)
    }
}
