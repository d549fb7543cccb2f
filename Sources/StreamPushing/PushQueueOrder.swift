import SidelineCore

/// Which queued segment `push` sends next when the link returns after a cut
/// (`push.backlog`). Pure: over the timeline slots still unacknowledged and the newest slot
/// the encoder has finished.
public enum PushQueueOrder {
    /// `push.backlog` (SidelineCore, where the config reads it).
    public typealias Backlog = PushBacklog

    /// The slot to send next; nil when nothing is queued. `queued`: unacknowledged slots (any
    /// order); `newest`: the newest slot finished, which is the live edge.
    public static func next(queued: Set<Int>, newest: Int?, backlog: Backlog) -> Int? {
        guard let oldest = queued.min() else { return nil }
        switch backlog {
        case .catchUp:
            return oldest
        case .liveFirst:
            if let newest, queued.contains(newest) { return newest }
            return oldest
        }
    }
}
