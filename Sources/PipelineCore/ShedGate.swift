import Synchronization

/// Which rungs the input leaves out of a frame or an audio packet: the shed ones
/// (`ShedControl`), and one taken back until the next segment starts, so its new run begins on
/// the forced IDR every rung gets there. Per frame: one lock and the set kept from the last
/// change; it is made again only when the shed rungs change or a taken-back rung resumes.
public final class ShedGate: Sendable {
    private let control: ShedControl
    private let state = Mutex(State())

    private struct State {
        var generation = -1
        var shed: Set<String> = []
        var resuming: Set<String> = []
        /// `shed` and `resuming` together: what a frame leaves out.
        var leftOut: Set<String> = []
    }

    public init(control: ShedControl) {
        self.control = control
    }

    /// The rungs that do not take a video frame (`startsSegment`: it is the first of a segment).
    /// Called by the input thread.
    public func leftOut(startsSegment: Bool) -> Set<String> {
        let generation = control.generation
        return state.withLock { s in
            if s.generation != generation {
                let now = control.shed
                s.resuming.formUnion(s.shed.subtracting(now))
                s.resuming.subtract(now)
                s.shed = now
                s.generation = generation
                s.leftOut = s.shed.union(s.resuming)
            }
            if startsSegment && !s.resuming.isEmpty {
                s.resuming = []
                s.leftOut = s.shed
            }
            return s.leftOut
        }
    }

    /// The rungs that do not take audio now (any thread).
    public func leftOutOfAudio() -> Set<String> {
        state.withLock { $0.leftOut }
    }
}
