import Foundation
import StreamPublishing

extension Backoff {
    /// Monotonic seconds, the clock the retry loops run on.
    public static let monotonicNow: @Sendable () -> Double = {
        let elapsed = ContinuousClock.now - backoffEpoch
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    /// Records a failure and blocks the calling thread (one of the pipeline's own, never Swift
    /// concurrency's) until the next attempt is due, or `cancelled` says to give up; it looks
    /// every 50 ms. Returns the wait.
    @discardableResult
    public mutating func waitAfterFailure(now: @Sendable () -> Double = Backoff.monotonicNow, unless cancelled: () -> Bool) -> Double {
        let delay = failed(at: now())
        while !isDue(at: now()) && !cancelled() { Thread.sleep(forTimeInterval: 0.05) }
        return delay
    }
}

private let backoffEpoch = ContinuousClock.now
