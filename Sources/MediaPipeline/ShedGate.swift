import PipelineCore
import Synchronization

/// Which rungs the input leaves out of a frame or an audio packet: the shed ones
/// (`ShedControl`), and one taken back until the next segment starts, so its new run begins on
/// the forced IDR every rung gets there. The common case (nothing shed) takes one lock and
/// returns an empty set, without allocating.
final class ShedGate: Sendable {
    private let control: ShedControl
    private let state = Mutex(State())

    private struct State {
        var generation = -1
        var shed: Set<String> = []
        var resuming: Set<String> = []
    }

    init(control: ShedControl) {
        self.control = control
    }

    /// The rungs that do not take a video frame (`startsSegment`: it is the first of a segment).
    /// Called by the input thread.
    func leftOut(startsSegment: Bool) -> Set<String> {
        let generation = control.generation
        return state.withLock { s in
            if s.generation != generation {
                let now = control.shed
                s.resuming.formUnion(s.shed.subtracting(now))
                s.resuming.subtract(now)
                s.shed = now
                s.generation = generation
            }
            if startsSegment && !s.resuming.isEmpty { s.resuming = [] }
            if s.shed.isEmpty && s.resuming.isEmpty { return [] }
            return s.shed.union(s.resuming)
        }
    }

    /// The rungs that do not take audio now (any thread).
    func leftOutOfAudio() -> Set<String> {
        state.withLock { s in s.shed.isEmpty && s.resuming.isEmpty ? [] : s.shed.union(s.resuming) }
    }
}
