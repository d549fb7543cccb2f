/// What a box with `redundancy` knows of the other box (issue 35), from probes of it: whether
/// players should be steered away from it. Pure: each probe's outcome and its time on a
/// monotonic clock in, a verdict out; the prober that asks and the clock live elsewhere.
///
/// Down quickly, up slowly: two failed probes in a row and the peer is down (a player behind
/// it would stall within a segment or two); only a run of answers over `upAfter` seconds brings
/// it back, so a box that restarts (it answers before its playlists have caught up) or flaps
/// does not pull players back and forth.
public struct PeerHealth: Sendable, Equatable {
    public enum Verdict: String, Sendable, Equatable {
        /// Answering, long enough to trust.
        case up
        /// Not answering, or not for long enough yet.
        case down
        /// Never probed yet: nothing is known (a box just started).
        case unknown
    }

    public struct Rules: Sendable, Equatable {
        /// Failed probes in a row that make a peer down.
        public var failuresToDown: Int
        /// How long a peer must answer every probe before it is up again (seconds).
        public var upAfter: Double
        /// No outcome for this long (the prober itself stuck): down, not a stale "up".
        public var staleAfter: Double

        public init(failuresToDown: Int = 2, upAfter: Double = 6, staleAfter: Double = 5) {
            self.failuresToDown = max(1, failuresToDown)
            self.upAfter = max(0, upAfter)
            self.staleAfter = max(0, staleAfter)
        }
    }

    public let rules: Rules
    private var failuresInARow = 0
    /// When the current run of answers began (nil while failing).
    private var answeringSince: Double?
    private var lastOutcome: Double?
    private var wasUp = false

    public init(rules: Rules = Rules()) {
        self.rules = rules
    }

    /// A probe ended at `now`: answered in time (`ok`) or not.
    public mutating func probed(ok: Bool, at now: Double) {
        lastOutcome = now
        if ok {
            failuresInARow = 0
            if answeringSince == nil { answeringSince = now }
            if let since = answeringSince, now - since >= rules.upAfter { wasUp = true }
        } else {
            failuresInARow += 1
            answeringSince = nil
            if failuresInARow >= rules.failuresToDown { wasUp = false }
        }
    }

    /// The peer as of `now`.
    public func verdict(at now: Double) -> Verdict {
        guard let lastOutcome else { return .unknown }
        if now - lastOutcome > rules.staleAfter { return .down }
        return wasUp ? .up : .down
    }
}
