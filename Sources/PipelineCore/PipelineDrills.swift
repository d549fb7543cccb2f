import Synchronization

/// Failures on demand, for tests and for rehearsals before a match (the admin API's drills).
/// A drill goes through the same code path as the real failure it imitates: a failed
/// variant's worker throws from its encode step (and its attempts to set up a new encoder fail
/// while the drill holds it down), a stalled input thread stops reading, a cut input fails its
/// read and its reconnect attempts until the cut is over.
public final class PipelineDrills: Sendable {
    private let variantsToFail = Mutex<Set<String>>([])
    /// Variants held down, and until when (nil: for the rest of this pipeline's life).
    private let variantsHeldDown = Mutex<[String: ContinuousClock.Instant?]>([:])
    private let stallRequest = Mutex<Double?>(nil)
    private let cut = Mutex<(requested: Bool, until: ContinuousClock.Instant?)>((false, nil))
    private let now: @Sendable () -> ContinuousClock.Instant

    /// `now`: the clock the drills' durations run on (a test moves it by hand).
    public init(now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.now = now
    }

    /// The named variant's next frame fails to encode, and its recovery attempts fail for
    /// `seconds` (nil: until the pipeline is restarted).
    public func failVariant(_ name: String, seconds: Double? = nil) {
        let until = seconds.map { now() + .milliseconds(Int64($0 * 1000)) }
        variantsHeldDown.withLock { $0[name] = .some(until) }
        variantsToFail.withLock { _ = $0.insert(name) }
    }

    /// Whether a fail drill still keeps the variant's encoder from being set up again.
    public func isVariantHeldDown(_ name: String) -> Bool {
        variantsHeldDown.withLock { held in
            guard let entry = held[name] else { return false }
            guard let until = entry else { return true }
            return now() < until
        }
    }

    /// The input thread stops reading for `seconds` (as if the pipeline hung).
    public func stall(seconds: Double) { stallRequest.withLock { $0 = seconds } }

    /// The live input is cut now and stays down (reconnect attempts fail) for `seconds`.
    public func cutInput(seconds: Double) {
        cut.withLock { $0 = (true, now() + .milliseconds(Int64(seconds * 1000))) }
    }

    /// Called by the input thread between packets: whether to lose the input now.
    public func takeCut() -> Bool {
        cut.withLock { state in
            defer { state.requested = false }
            return state.requested
        }
    }

    /// Whether a cut drill still holds the input down.
    public var isInputHeldDown: Bool {
        cut.withLock { $0.until.map { now() < $0 } ?? false }
    }

    /// Called by the variant's own thread before each frame.
    public func takeFailure(for variant: String) -> Bool {
        variantsToFail.withLock { $0.remove(variant) != nil }
    }

    /// Called by the input thread between packets.
    public func takeStall() -> Double? {
        stallRequest.withLock { request in
            defer { request = nil }
            return request
        }
    }
}
