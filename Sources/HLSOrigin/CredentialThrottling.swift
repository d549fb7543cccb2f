import Foundation
import HTTPTypes
import Metrics
import NIOCore
import NIOHTTPTypes
import OriginAccess
import OriginConnections
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

/// `CredentialThrottling` on one connection, kept by its `ClientConnectionLimiter` (one handler
/// fewer on the path every request takes): a request that offers a credential from an address
/// with no attempt left is answered 429 there, before the gate, a route or the fast path checks
/// it; an answer of 401 or 403 to a request that offered one takes an attempt.
///
/// `/api/access` from a peer that is not a trusted proxy is not throttled here: an edge cache
/// asks it about each of its viewers' requests from its own one address, and throttling that
/// address would lock every viewer behind the edge out. From a trusted proxy
/// (`server.trusted_proxies`) it is, per the viewer the edge names in X-Forwarded-For: the
/// question carries that viewer's credential, so its refusals are that viewer's attempts, and
/// every other request through the edge counts against the viewer it names too.
///
/// Order: HTTP/1.1 answers requests in order. A 429 is written at once only when nothing is
/// being answered on the connection; a throttled request pipelined behind another closes the
/// connection instead (players do not pipeline; a guessing script may). On the event loop only.
final class CredentialThrottleState: ConnectionRequestScreen {
    private let throttling: CredentialThrottling
    /// Each request being answered (oldest first): the client it counts against, when it
    /// offered a credential.
    private var offered: [String?] = []
    /// The request answered here with 429: its body parts are dropped.
    private(set) var swallowing = false
    /// Set when the peer is a trusted proxy: requests count against the viewer it names.
    private var proxy: (peer: SocketAddress?, proxies: TrustedProxies)?

    init(throttling: CredentialThrottling) {
        self.throttling = throttling
    }

    /// The connection is a trusted proxy's (`ClientConnectionLimiter.decide`).
    func trustPeer(_ peer: SocketAddress?, proxies: TrustedProxies) {
        proxy = (peer, proxies)
    }

    /// Who `head` counts against: the viewer a trusted proxy names, or the peer.
    private func client(of head: HTTPRequest, context: ChannelHandlerContext) -> String {
        guard let proxy else { return context.channel.remoteAddress?.clientKey ?? "unknown" }
        return RequestClient.key(peer: proxy.peer, forwardedFor: head.headerFields[RequestClient.forwardedForHeader], proxies: proxy.proxies)
    }

    /// True when the request was answered (429) or the connection closed here: do not pass it on.
    func refuses(_ head: HTTPRequest, context: ChannelHandlerContext) -> Bool {
        let path = head.path ?? "/"
        let authorization = head.headerFields[.authorization]
        let offers: Bool
        if path.utf8.starts(with: "/api/access".utf8) {
            // An edge's question: the viewer's URL is in X-Original-URI.
            offers = proxy != nil && Redaction.offersCredential(target: head.headerFields[ViewerAccess.originalURIHeader] ?? "/", authorization: authorization)
        } else {
            offers = Redaction.offersCredential(target: path, authorization: authorization)
        }
        let client = offers ? client(of: head, context: context) : nil
        if let client, let refusal = throttling.refusal(for: client) {
            guard offered.isEmpty else {
                context.close(promise: nil)
                return true
            }
            swallowing = true
            let answer = refusal.response(requestID: RequestID.take(head.headerFields[RequestID.header])).written(forHEAD: head.method == .head)
            context.write(NIOAny(HTTPResponsePart.head(answer.head)), promise: nil)
            if let body = answer.body { context.write(NIOAny(HTTPResponsePart.body(body)), promise: nil) }
            context.writeAndFlush(NIOAny(HTTPResponsePart.end(nil)), promise: nil)
            return true
        }
        swallowing = false
        offered.append(client)
        return false
    }

    /// An answer's head is being written: a 401 or 403 to a request that offered a credential
    /// takes an attempt from its client.
    func answering(_ status: HTTPResponse.Status, context: ChannelHandlerContext) {
        guard status.code == 401 || status.code == 403, let first = offered.first, let client = first else { return }
        throttling.recordFailure(of: client)
    }

    /// An answer's end is being written.
    func answered() {
        if !offered.isEmpty { offered.removeFirst() }
    }
}
