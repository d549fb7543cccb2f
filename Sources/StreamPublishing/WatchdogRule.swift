/// When a pipeline counts as stuck (`stream.watchdog_timeout`): no segment of it was accepted
/// for longer than the timeout, counted from its start, with one segment duration more before
/// its first one. A segment that comes too late for its slot (already filled) is not accepted:
/// a pipeline that lags the wall clock for good is as stuck as one that stopped.
public struct WatchdogRule: Sendable, Equatable {
    /// Seconds; 0 turns the watchdog off.
    public let timeout: Double
    public let segmentDuration: Double

    public init(timeout: Double, segmentDuration: Double) {
        self.timeout = timeout
        self.segmentDuration = segmentDuration
    }

    /// Seconds the pipeline has been quiet at `now`, if that is too long; nil while fine.
    public func stuckFor(startedAt start: Double, lastAccepted: Double?, now: Double) -> Double? {
        guard timeout > 0 else { return nil }
        // A segment accepted before this run started does not count for it.
        let sinceRun = lastAccepted.flatMap { $0 >= start ? $0 : nil }
        let allowance = timeout + (sinceRun == nil ? segmentDuration : 0)
        let quiet = now - (sinceRun ?? start)
        return quiet > allowance ? quiet : nil
    }
}
