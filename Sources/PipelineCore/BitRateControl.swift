import Synchronization

/// Video bit rates changed while the pipeline runs (`sideline push` following its uplink):
/// each variant's encoder takes a new rate with its next frame, so the segment being encoded
/// already shrinks and the next one is wholly at the new rate; no encoder is restarted and no
/// frame is lost (libx264, through libavcodec, compares the context's rates with its own before
/// every frame and reconfigures itself when they differ). Set from any thread; the variant's
/// thread reads a counter per frame and the rates only when it moved.
public final class BitRateControl: Sendable {
    private let wanted = Mutex<[String: Int]>([:])
    private let changes = Atomic<Int>(0)

    public init() {}

    /// The average video bit rate `variant` encodes at from its next frame; nil goes back to
    /// the rung's configured rate. `maxrate` and `bufsize` keep their configured ratios to it.
    public func set(_ bitsPerSecond: Int?, for variant: String) {
        wanted.withLock { $0[variant] = bitsPerSecond }
        changes.add(1, ordering: .releasing)
    }

    /// Counts calls of `set`: a reader that saw the same count has nothing new to read.
    public var generation: Int { changes.load(ordering: .acquiring) }

    /// The rate asked for `variant`, nil for its configured one.
    public func rate(for variant: String) -> Int? { wanted.withLock { $0[variant] } }
}
