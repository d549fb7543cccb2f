/// When a connection between requests is closed as idle, and when a draining server closes it:
/// the rules of Hummingbird's `HTTPConnectionStateHandler`, kept as a value so that requests the
/// origin answers from the socket's bytes (`SimpleRequestHead`) and requests the router answers
/// are counted in one book. Hummingbird's handler saw only the router's, and closed a connection
/// busy with fast answers as idle.
///
/// - A connection with no request in progress is closed `idleTimeout` seconds after it was last
///   active (a request read or a body part of one arriving, or an answer ending), whether it
///   sits between requests or trickles a head in.
/// - A request whose head was read but whose body is still arriving keeps the same timer, so a
///   body that stops arriving is closed too; one being answered (held for a blocking reload,
///   written) is not idle.
/// - On a drain, a connection with nothing in progress closes at once, and one with requests in
///   progress closes when the last is answered.
///
/// Pure: clock readings in seconds are passed in.
public struct ConnectionKeepAlive: Sendable, Equatable {
    public let idleTimeout: Double?
    public private(set) var requestsInProgress = 0
    /// A request's head was read and its end has not arrived.
    public private(set) var readingRequest = false
    public private(set) var lastActive: Double
    public private(set) var closeWhenAnswered = false

    public enum Action: Sendable, Equatable {
        case none
        case close
        /// Look again at this time (`timerFired`), unless a check is already due.
        case check(at: Double)
    }

    public init(idleTimeout: Double?, now: Double) {
        self.idleTimeout = idleTimeout.flatMap { $0 > 0 ? $0 : nil }
        lastActive = now
    }

    /// The first check, when the connection opens.
    public var firstCheck: Action { idleTimeout.map { .check(at: lastActive + $0) } ?? .none }

    public mutating func headRead(now: Double) {
        lastActive = now
        readingRequest = true
        requestsInProgress += 1
    }

    public mutating func bodyRead(now: Double) {
        lastActive = now
    }

    public mutating func endRead(now: Double) {
        lastActive = now
        readingRequest = false
    }

    /// A whole request read at once (the byte-level fast path): head and end.
    public mutating func requestRead(now: Double) {
        headRead(now: now)
        endRead(now: now)
    }

    public mutating func answerEnded(now: Double) -> Action {
        requestsInProgress = max(0, requestsInProgress - 1)
        guard requestsInProgress == 0 else { return .none }
        if closeWhenAnswered { return .close }
        lastActive = now
        return idleTimeout.map { .check(at: now + $0) } ?? .none
    }

    public func timerFired(now: Double) -> Action {
        guard let idleTimeout else { return .none }
        // Read and being answered: not idle; the answer's end looks again.
        if !readingRequest, requestsInProgress > 0 { return .none }
        let due = lastActive + idleTimeout
        return now >= due ? .close : .check(at: due)
    }

    public mutating func drain() -> Action {
        guard requestsInProgress > 0 else { return .close }
        closeWhenAnswered = true
        return .none
    }
}
