import Synchronization

/// The rungs a running pipeline encodes nothing for (`RungShedding`): the box gave them up to
/// keep the rest whole. Set from any thread; the input thread reads a counter per frame and the
/// names only when it moved (`ShedGate`). A rung taken back starts again at a segment start.
/// One per stream, shared by every pipeline run of it, so a run the watchdog starts keeps it.
public final class ShedControl: Sendable {
    private let names: Mutex<Set<String>>
    private let changes = Atomic<Int>(0)

    public init(shed: Set<String> = []) {
        names = Mutex(shed)
    }

    public func set(_ variant: String, shed: Bool) {
        names.withLock { if shed { $0.insert(variant) } else { $0.remove(variant) } }
        changes.add(1, ordering: .releasing)
    }

    /// Counts calls of `set`: a reader that saw the same count has nothing new to read.
    public var generation: Int { changes.load(ordering: .acquiring) }

    public var shed: Set<String> { names.withLock { $0 } }
}
