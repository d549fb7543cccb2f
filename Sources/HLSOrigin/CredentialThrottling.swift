import Foundation
import HTTPTypes
import Metrics
import NIOCore
import NIOHTTPTypes
import OriginAccess
import OriginPolicy
import SidelineCore
import Synchronization

/// The server's one `CredentialThrottle`, shared by every connection of every port, with the
/// monotonic clock it runs on and its counts in `/metrics`:
/// `sideline_access_failed_credentials_total` (credentials refused with 401 or 403) and
/// `sideline_access_throttled_total` (requests answered 429).
public final class CredentialThrottling: Sendable {
    private let throttle: Mutex<CredentialThrottle>
    let clock: @Sendable () -> Double
    private let failed = Counter(label: "sideline_access_failed_credentials_total")
    private let throttled = Counter(label: "sideline_access_throttled_total")

    public init(limits: CredentialThrottle.Limits = .init(), clock: @escaping @Sendable () -> Double = { MonotonicClock.seconds() }) {
        throttle = Mutex(CredentialThrottle(limits: limits))
        self.clock = clock
    }

    /// The refusal for `address` now, when it has no attempt left.
    func refusal(for address: String) -> Refusal? {
        let now = clock()
        guard let seconds = throttle.withLock({ $0.retryAfter(for: address, now: now) }) else { return nil }
        throttled.increment()
        return Refusal(.tooManyAttempts, "too many refused credentials from this address: wait \(seconds) s, then try again with the right token or URL",
                       retryAfter: seconds, cache: .noStore)
    }

    func recordFailure(of address: String) {
        let now = clock()
        failed.increment()
        throttle.withLock { $0.recordFailure(of: address, now: now) }
    }
}

/// Puts `CredentialThrottling` on a connection: a request that offers a credential from an
/// address with no attempt left is answered 429 here, before the gate, a route or the fast
/// path checks it; an answer of 401 or 403 to a request that offered one takes an attempt.
/// Sits right after the HTTP codec, so it sees every answer, the fast path's and the router's.
///
/// `/api/access` is not throttled here: an edge cache asks it about each of its viewers'
/// requests from its own one address, and throttling that address would lock every viewer
/// behind the edge out.
///
/// Order: HTTP/1.1 answers requests in order. A 429 is written at once only when nothing is
/// being answered on the connection; a throttled request pipelined behind another closes the
/// connection instead (players do not pipeline; a guessing script may).
final class CredentialThrottleHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let throttling: CredentialThrottling
    /// Whether each request being answered (oldest first) offered a credential.
    private var offered: [Bool] = []
    /// The request answered here with 429: its body parts are dropped.
    private var swallowing = false

    init(throttling: CredentialThrottling) {
        self.throttling = throttling
    }

    private func address(_ context: ChannelHandlerContext) -> String {
        context.channel.remoteAddress?.clientKey ?? "unknown"
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            let offers = !(head.path ?? "/").hasPrefix("/api/access")
                && Redaction.offersCredential(target: head.path ?? "/", authorization: head.headerFields[.authorization])
            if offers, let refusal = throttling.refusal(for: address(context)) {
                guard offered.isEmpty else {
                    context.close(promise: nil)
                    return
                }
                swallowing = true
                let answer = refusal.response(requestID: RequestID.take(head.headerFields[RequestID.header])).written(forHEAD: head.method == .head)
                context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
                if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            swallowing = false
            offered.append(offers)
            context.fireChannelRead(data)
        case .body, .end:
            if !swallowing { context.fireChannelRead(data) }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        switch part {
        case let .head(response) where response.status.code >= 200:
            if response.status.code == 401 || response.status.code == 403, offered.first == true {
                throttling.recordFailure(of: address(context))
            }
        case .end:
            if !offered.isEmpty { offered.removeFirst() }
        default:
            break
        }
        context.write(data, promise: promise)
    }
}
