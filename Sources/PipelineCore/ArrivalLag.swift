/// How far behind the server's clock a camera's timestamps run: the least (arrival time -
/// input time) over the last `window` seconds of input. The least, not the mean: a frame can
/// only reach the server late (held up by the network, a decoder's burst), never early, so the
/// least lag is the camera's clock plus its steady latency, and it follows a camera clock that
/// drifts against the server's. Pure; a monotonic queue keeps it O(1) per frame.
public struct ArrivalLag: Sendable {
    /// Seconds of input time the least is taken over.
    public let window: Double
    /// Candidates for the least, oldest first, with rising lag.
    private var candidates: [(input: Double, lag: Double)] = []
    private var head = 0

    public init(window: Double = 4) {
        precondition(window > 0)
        self.window = window
    }

    /// Forgets every sample: a new input, or the camera's timestamps jumped.
    public mutating func reset() {
        candidates.removeAll(keepingCapacity: true)
        head = 0
    }

    /// Takes one frame's lag (arrival - input time, seconds); returns the least over the window.
    public mutating func observe(inputTime: Double, lag: Double) -> Double {
        while candidates.count > head, candidates[candidates.count - 1].lag >= lag { candidates.removeLast() }
        candidates.append((inputTime, lag))
        while head < candidates.count - 1, candidates[head].input < inputTime - window { head += 1 }
        // Never more than a window of frames at any rate a camera sends (or 4,096): the queue is bounded.
        if head > 1024 || candidates.count - head > 4096 {
            candidates.removeFirst(max(head, candidates.count - 4096))
            head = 0
        }
        return candidates[head].lag
    }
}
