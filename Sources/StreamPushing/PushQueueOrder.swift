/// Which queued segment `push` sends next when the link returns after a cut
/// (`push.backlog`). Pure: over the timeline slots still unacknowledged and the newest slot
/// the encoder has finished.
public enum PushQueueOrder {
    public enum Backlog: String, Sendable, Equatable, CaseIterable {
        /// Everything in order, oldest first: the live edge waits until the backlog is through.
        case catchUp = "catch-up"
        /// The live edge first, whenever there is a new segment; the backlog, oldest first,
        /// in between. Players see live again at once; the recording fills in behind.
        case liveFirst = "live-first"
    }

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
