import Synchronization

/// The clock tests move by hand: every time-driven decision of Sideline reads an injected
/// `@Sendable () -> Double` (monotonic seconds, `MonotonicClock.seconds` in the server), and a
/// test passes `clock.read` instead, then calls `advance(by:)`. Nothing sleeps, so a test of
/// a 30 s backoff or a 5 s watchdog runs in microseconds and never depends on the machine's load.
public final class ManualClock: Sendable {
    private let current: Mutex<Double>

    /// Starts at `start` seconds: any value; tests of staleness often start away from zero so
    /// that "never" and "at zero" cannot be confused.
    public init(_ start: Double = 1000) {
        current = Mutex(start)
    }

    public var now: Double { current.withLock { $0 } }

    public func advance(by seconds: Double) {
        precondition(seconds >= 0, "a monotonic clock does not go back")
        current.withLock { $0 += seconds }
    }

    /// The clock as the production code takes it.
    public var read: @Sendable () -> Double { { self.now } }
}
