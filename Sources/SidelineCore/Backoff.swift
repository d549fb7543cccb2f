/// Exponential backoff between attempts: the one rule behind every retry loop of Sideline
/// (reopening a lost input, setting up a failed variant's encoder again, opening or restarting
/// a pipeline). Pure: the caller passes `now` (monotonic seconds), so tests move time.
public struct Backoff: Sendable, Equatable {
    public let first: Double
    public let maximum: Double
    public let factor: Double
    /// The wait after the next failure.
    public private(set) var nextDelay: Double
    /// When the next attempt may run; nil: at once.
    public private(set) var nextAttempt: Double?
    /// Failures since the last success.
    public private(set) var failures = 0

    public init(first: Double, maximum: Double, factor: Double = 2) {
        precondition(first > 0 && maximum >= first && factor >= 1)
        self.first = first
        self.maximum = maximum
        self.factor = factor
        self.nextDelay = first
    }

    /// Whether an attempt may run at `now`.
    public func isDue(at now: Double) -> Bool { nextAttempt.map { now >= $0 } ?? true }

    /// Records a failed attempt at `now`; returns the wait before the next one.
    @discardableResult
    public mutating func failed(at now: Double) -> Double {
        let delay = nextDelay
        failures += 1
        nextAttempt = now + delay
        nextDelay = min(nextDelay * factor, maximum)
        return delay
    }

    /// Waits start from `first` again after the next failure.
    public mutating func succeeded() {
        failures = 0
        nextDelay = first
        nextAttempt = nil
    }

    /// Input reconnects: a camera that comes back is found within half a second at first,
    /// and a feed that stays down is tried every 8 s.
    public static var inputReconnect: Backoff { Backoff(first: 0.5, maximum: 8) }
    /// A failed variant's encoder, and opening or restarting a pipeline.
    public static var encoderRecovery: Backoff { Backoff(first: 1, maximum: 30) }
}
