import Synchronization

/// When the input thread had read the last frame of each segment: the start of that segment's
/// publish latency (the time to encode, mux, write and publish it). Shared with whoever
/// publishes, so the latency can be measured where it ends.
public final class SegmentTimings: Sendable {
    private let completed = Mutex<[Int: ContinuousClock.Instant]>([:])

    public init() {}

    /// Segments this far behind the newest are forgotten, so the table stays small over a long
    /// event; every variant has published them long before.
    public static let retained = 64

    public func markInputComplete(segment: Int, at instant: ContinuousClock.Instant = .now) {
        completed.withLock {
            $0[segment] = instant
            $0.removeValue(forKey: segment - Self.retained)
        }
    }

    /// The instant segment `index`'s last input frame was read.
    public func inputCompletion(segment index: Int) -> ContinuousClock.Instant? {
        completed.withLock { $0[index] }
    }
}

/// Latencies in seconds, with nearest-rank percentiles.
public final class LatencyRecorder: Sendable {
    private let samples = Mutex<[Double]>([])

    public init() {}

    public func record(_ seconds: Double) { samples.withLock { $0.append(seconds) } }

    public var count: Int { samples.withLock { $0.count } }

    /// The `p`-th percentile (0...100) by nearest rank; nil with no samples.
    public func percentile(_ p: Double) -> Double? {
        let sorted = samples.withLock { $0 }.sorted()
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
