/// Whether a variant's encoder is still making pictures, from the progress it reports (frames
/// encoded, parts, segments) on the monotonic clock the caller passes.
///
/// A slot whose deadline passed is filled only for an encoder that stalled: one whose frames
/// keep coming is late, not gone, and its segment takes its slot when it comes (a stand-in
/// there would show a card to a viewer of a camera that is on air, because the box was busy
/// for a moment). An encoder reports progress at least every `EncoderProgress.interval`
/// (a quarter second) while it encodes, so `stalledAfter` of silence is a stall.
///
/// Pure; the core owns one per stream.
public struct EncoderLiveness: Sendable, Equatable {
    /// Silence after which an encoder counts as stalled: four progress reports missed.
    public static let defaultStalledAfter = 1.0

    public let stalledAfter: Double
    private var lastProgress: [String: Double] = [:]

    public init(stalledAfter: Double = Self.defaultStalledAfter) {
        self.stalledAfter = max(0, stalledAfter)
    }

    /// `variant`'s encoder made progress at `now`.
    public mutating func progressed(_ variant: String, at now: Double) {
        if let last = lastProgress[variant], last >= now { return }
        lastProgress[variant] = now
    }

    /// A new run of the pipeline: the old encoders are gone, the new ones have said nothing yet.
    public mutating func forgetAll() {
        lastProgress = [:]
    }

    /// Whether `variant`'s encoder has said nothing for `stalledAfter` (or at all this run).
    public func isStalled(_ variant: String, now: Double) -> Bool {
        guard let last = lastProgress[variant] else { return true }
        return now - last >= stalledAfter
    }
}
