/// The clock the server's time-driven decisions run on, as an injectable function: seconds on
/// `ContinuousClock` since the process first asked. The registry's staleness, the slot cadence
/// and every retry loop read this one clock in the server; tests pass their own function.
public enum MonotonicClock {
    public static let seconds: @Sendable () -> Double = {
        (ContinuousClock.now - epoch).inSeconds
    }

    private static let epoch = ContinuousClock.now
}
