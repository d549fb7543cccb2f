import Foundation
import SidelineCore

extension Backoff {
    /// Records a failure and blocks the calling thread (one of the pipeline's own, never Swift
    /// concurrency's) until the next attempt is due, or `cancelled` says to give up; it looks
    /// every 50 ms. Returns the wait.
    @discardableResult
    public mutating func waitAfterFailure(now: @Sendable () -> Double = MonotonicClock.seconds, unless cancelled: () -> Bool) -> Double {
        let delay = failed(at: now())
        while !isDue(at: now()) && !cancelled() { Thread.sleep(forTimeInterval: 0.05) }
        return delay
    }
}
