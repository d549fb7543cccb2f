/// Whether each variant's writes to the data directory succeed, and when that changes: a disk
/// that refuses writes is reported loudly once when it starts and once when it recovers, not
/// at every segment (each failed write is still counted by the caller).
public struct WriteHealth: Sendable, Equatable {
    /// Variants whose last write failed.
    public private(set) var failing: Set<String> = []

    public enum Change: Sendable, Equatable {
        /// The first failed write after good ones.
        case startedFailing
        /// The first good write after failed ones.
        case recovered
    }

    public init() {}

    /// Records the outcome of one write of `variant`; returns the change it makes, if any.
    public mutating func record(failed: Bool, variant: String) -> Change? {
        if failed { return failing.insert(variant).inserted ? .startedFailing : nil }
        return failing.remove(variant) != nil ? .recovered : nil
    }
}
