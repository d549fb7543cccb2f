/// The clock the server's time-driven decisions run on, as an injectable function: seconds on
/// `ContinuousClock` since the process first asked. The registry's staleness, the slot cadence
/// and every retry loop read this one clock in the server; tests pass their own function.
public enum MonotonicClock {
    public static let seconds: @Sendable () -> Double = {
        (ContinuousClock.now - epoch).inSeconds
    }

    /// Waits `seconds` on the same clock; throws `CancellationError` when the task is cancelled.
    /// The sleep every waiting loop takes in the server; tests pass `SimulatedTime.sleeper`.
    public static let sleep: @Sendable (Double) async throws -> Void = { seconds in
        try await Task.sleep(for: .seconds(seconds))
    }

    private static let epoch = ContinuousClock.now
}
