import Synchronization

/// Every player session the origin has heard CMCD from, bounded in number and expired when
/// idle, so a crowd or a hostile client cannot grow it without end. The clock is injected
/// (seconds): tests move time instead of sleeping.
public final class PlayerSessionBook: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Sessions kept at most; the least recently seen goes when a new one comes.
        public var maxSessions: Int
        /// A session with no request for this long is forgotten.
        public var idleSeconds: Double
        public init(maxSessions: Int = 2000, idleSeconds: Double = 60) {
            self.maxSessions = maxSessions
            self.idleSeconds = idleSeconds
        }
    }

    /// How many sessions of a stream are in a state, after a change: what `/metrics` shows.
    public struct Count: Sendable, Equatable, Hashable {
        public let stream: String
        public let state: PlayerSession.State
        public init(stream: String, state: PlayerSession.State) {
            self.stream = stream
            self.state = state
        }
    }

    public let limits: Limits
    private let clock: @Sendable () -> Double
    private let state = Mutex(State())

    struct State {
        var sessions: [String: PlayerSession] = [:]
        var counts: [Count: Int] = [:]
        var lastSweep = -Double.infinity
        var malformed = 0
    }

    public init(limits: Limits = Limits(), clock: @escaping @Sendable () -> Double) {
        self.limits = limits
        self.clock = clock
    }

    /// What changed for `/metrics`: new counts of the (stream, state) pairs that changed, and
    /// whether this report began a stall.
    public struct Change: Sendable, Equatable {
        public var counts: [Count: Int] = [:]
        public var stallBegan = false
    }

    /// Takes one request's report (one that names its session; others are not kept).
    @discardableResult
    public func record(_ report: CMCDReport, stream: String, variant: String?, userAgent: String?) -> Change {
        guard let sid = report.sessionID, !sid.isEmpty else { return Change() }
        let now = clock()
        return state.withLock { book in
            var change = Change()
            sweep(&book, now: now, into: &change)
            var session = book.sessions[sid] ?? PlayerSession(sid: sid, stream: stream, at: now)
            let before = book.sessions[sid].map { Count(stream: $0.stream, state: $0.state) }
            if before == nil, book.sessions.count >= limits.maxSessions, let oldest = book.sessions.values.min(by: { $0.lastSeen < $1.lastSeen }) {
                remove(oldest.sid, from: &book, into: &change)
            }
            let stallsBefore = session.stalls
            session.record(report, stream: stream, variant: variant, userAgent: userAgent, at: now)
            book.sessions[sid] = session
            let after = Count(stream: session.stream, state: session.state)
            if before != after {
                if let before { adjust(before, by: -1, in: &book, into: &change) }
                adjust(after, by: 1, in: &book, into: &change)
            }
            change.stallBegan = session.stalls > stallsBefore
            return change
        }
    }

    /// A request whose CMCD could not be read: counted, never an error for the player.
    public func countMalformed() {
        state.withLock { $0.malformed += 1 }
    }

    public var malformedCount: Int { state.withLock { $0.malformed } }

    /// Every live session, stalling ones first, then by stream and session.
    public func sessions() -> (sessions: [PlayerSession], change: Change) {
        let now = clock()
        return state.withLock { book in
            var change = Change()
            sweep(&book, now: now, into: &change)
            let sorted = book.sessions.values.sorted { a, b in
                if a.state != b.state { return a.state == .stalling }
                return (a.stream, a.sid) < (b.stream, b.sid)
            }
            return (sorted, change)
        }
    }

    /// Forgets idle sessions, at most once a second (the sweep reads every session).
    private func sweep(_ book: inout State, now: Double, into change: inout Change) {
        guard now - book.lastSweep >= 1 else { return }
        book.lastSweep = now
        for session in book.sessions.values where now - session.lastSeen > limits.idleSeconds {
            remove(session.sid, from: &book, into: &change)
        }
    }

    private func remove(_ sid: String, from book: inout State, into change: inout Change) {
        guard let session = book.sessions.removeValue(forKey: sid) else { return }
        adjust(Count(stream: session.stream, state: session.state), by: -1, in: &book, into: &change)
    }

    private func adjust(_ key: Count, by delta: Int, in book: inout State, into change: inout Change) {
        let value = (book.counts[key] ?? 0) + delta
        book.counts[key] = value
        change.counts[key] = value
    }
}
