import HummingbirdCore
import OriginPolicy
import SidelineCore
import Synchronization

/// The server's own condition for `StatusPolicy`: draining for shutdown, or more connections
/// or requests than configured. Counters are atomics: every request touches them.
public final class AdmissionControl: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Open connections above which requests are answered 503; nil for no limit.
        public var maxConnections: Int?
        /// Requests being handled at once above which new ones are answered 503; nil for no limit.
        public var maxRequestsInFlight: Int?
        /// Connections one client address may hold open; more are closed at once. Nil: no cap.
        public var maxConnectionsPerClient: Int?
        /// A connection that sends nothing (between requests, or while its request's head
        /// trickles in) for this long is closed. Nil: never.
        public var idleTimeout: Duration?
        /// A connection whose answer's writes make no progress (the client stopped reading) for
        /// this long is closed. Nil: never.
        public var writeTimeout: Duration?
        /// Requests one client may have held at once (blocking reloads, hinted parts); nil for
        /// no bound (`PerClientBook`).
        public var maxHeldPerClient: Int?
        /// The edges whose X-Forwarded-For names the player (`server.trusted_proxies`): their
        /// connections are never capped or evicted for the players they carry, and the
        /// per-client rules count the player they name.
        public var trustedProxies: TrustedProxies

        public init(maxConnections: Int? = nil, maxRequestsInFlight: Int? = nil, maxConnectionsPerClient: Int? = nil, idleTimeout: Duration? = nil,
                    writeTimeout: Duration? = nil, maxHeldPerClient: Int? = PerClientBook.defaultHeldPerClient, trustedProxies: TrustedProxies = TrustedProxies()) {
            self.maxConnections = maxConnections
            self.maxRequestsInFlight = maxRequestsInFlight
            self.maxConnectionsPerClient = maxConnectionsPerClient
            self.idleTimeout = idleTimeout
            self.writeTimeout = writeTimeout
            self.maxHeldPerClient = maxHeldPerClient
            self.trustedProxies = trustedProxies
        }
    }

    public let limits: Limits
    private let draining = Atomic<Bool>(false)
    private let connections = Atomic<Int>(0)
    private let requests = Atomic<Int>(0)
    /// Requests refused by admission control or draining, for metrics and tests.
    private let refused = Atomic<Int>(0)
    /// Requests the fast path answered on the event loop (OriginWire).
    private let fastAnswers = Atomic<Int>(0)

    /// Connections per client address (`limits.maxConnectionsPerClient`), and the one place
    /// that frees a connection for a new client at either cap.
    public let clients: ClientConnections
    /// Requests held now, per client, and their bound.
    public let held: HeldRequests
    /// Requests in flight now of each player behind a trusted edge, and their bound.
    public let forwarded: ForwardedRequests

    public init(limits: Limits = Limits(), clock: @escaping @Sendable () -> Double = MonotonicClock.seconds) {
        self.limits = limits
        self.clients = ClientConnections(cap: limits.maxConnectionsPerClient, maxConnections: limits.maxConnections, writeTimeout: limits.writeTimeout,
                                         trustedProxies: limits.trustedProxies, clock: clock)
        self.held = HeldRequests(perClient: limits.maxHeldPerClient)
        self.forwarded = ForwardedRequests(perPlayer: limits.maxConnectionsPerClient)
    }

    /// From now on every new request is answered 503; requests already admitted finish.
    public func beginDraining() { draining.store(true, ordering: .releasing) }
    public var isDraining: Bool { draining.load(ordering: .acquiring) }
    public var refusedRequests: Int { refused.load(ordering: .relaxed) }
    public var openConnections: Int { connections.load(ordering: .relaxed) }
    /// Requests in flight now (held ones are not: `setAside`).
    public var requestsInFlight: Int { requests.load(ordering: .relaxed) }
    public var fastPathAnswers: Int { fastAnswers.load(ordering: .relaxed) }
    public func countFastAnswer() { fastAnswers.add(1, ordering: .relaxed) }

    /// The server's condition for a request that would make `inFlight` requests in flight.
    /// One rule for both ways in: `enter()` (the router) and `isServingFreely` (the fast path).
    private func condition(inFlight: Int) -> StatusPolicy.ServerCondition {
        if isDraining { return .draining }
        // The connection table's count, not Hummingbird's: a connection closed to make room
        // (`ClientConnections`) leaves the table at once, while Hummingbird's counter holds it
        // until its close completes, and the new client it made room for would be refused.
        if let max = limits.maxConnections, clients.openConnections > max { return .overloaded }
        if let max = limits.maxRequestsInFlight, inFlight > max { return .overloaded }
        return .serving
    }

    /// True when a request arriving now would be admitted: a fast-path answer is over before
    /// the next request is read, but a server that is draining, over its connection limit or
    /// with its router full refuses everything, as before. Counts nothing: when this is false
    /// the fast path hands the request to `AdmissionMiddleware`, which answers and counts it.
    public var isServingFreely: Bool {
        condition(inFlight: requests.load(ordering: .relaxed) + 1) == .serving
    }

    /// Counts the request in if the server is serving; the caller must then call `leave()`.
    public func enter() -> StatusPolicy.ServerCondition {
        let inFlight = requests.add(1, ordering: .acquiringAndReleasing).newValue
        let condition = condition(inFlight: inFlight)
        if condition != .serving {
            requests.subtract(1, ordering: .relaxed)
            refused.add(1, ordering: .relaxed)
        }
        return condition
    }

    public func leave() { requests.subtract(1, ordering: .relaxed) }

    /// A request admitted by `enter()` is held (blocking reload, hinted part): while it waits
    /// it is not in flight, so a crowd waiting at the live edge never fills the admission every
    /// other request needs (its own bound is the client's, `held`). `takeBack()` when it
    /// goes on to be answered, so the middleware's `leave()` stays balanced.
    public func setAside() { requests.subtract(1, ordering: .relaxed) }
    public func takeBack() { requests.add(1, ordering: .relaxed) }

    public func connectionOpened() { connections.add(1, ordering: .relaxed) }
    public func connectionClosed() { connections.subtract(1, ordering: .relaxed) }

    /// Counts connections for `limits.maxConnections`. It always accepts: a connection over
    /// the limit is answered 503 with Retry-After, which a client understands, rather than
    /// left waiting in the kernel's backlog, which looks like a dead server.
    public var connectionCounter: some AvailableConnectionsDelegate { ConnectionCounter(control: self) }

    private struct ConnectionCounter: AvailableConnectionsDelegate {
        let control: AdmissionControl
        mutating func connectionOpened() { control.connectionOpened() }
        mutating func connectionClosed() { control.connectionClosed() }
        func isAcceptingNewConnections() -> Bool { true }
    }
}
