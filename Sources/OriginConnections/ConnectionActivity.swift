import OriginPolicy
import Synchronization

/// What one connection is doing, kept by its `ClientConnectionLimiter` on the connection's event
/// loop and read by `ClientConnections` from whichever loop accepts a new client. Atomics, not
/// a lock: they change on every write and only eviction (rare) reads them all.
public final class ConnectionActivity: Sendable {
    /// Requests whose head was read and whose answer has not been written to the end.
    private let requests = Atomic<Int>(0)
    /// Writes queued and not yet taken by the kernel.
    private let outstanding = Atomic<Int>(0)
    /// Clock readings in seconds, stored as bit patterns.
    private let progress = Atomic<UInt64>(0)
    private let active = Atomic<UInt64>(0)

    public init(now: Double) {
        progress.store(now.bitPattern, ordering: .relaxed)
        active.store(now.bitPattern, ordering: .relaxed)
    }

    public func requestStarted(now: Double) {
        requests.add(1, ordering: .relaxed)
        active.store(now.bitPattern, ordering: .relaxed)
    }

    public func requestAnswered() {
        _ = requests.wrappingSubtract(1, ordering: .relaxed)
        // A pipelined answer without a read request (cannot happen with Hummingbird) must not
        // leave a negative count that would make the connection look busy for ever.
        if requests.load(ordering: .relaxed) < 0 { requests.store(0, ordering: .relaxed) }
    }

    /// A write is queued; true when it is the only one (the write timer should run).
    public func writeQueued(now: Double) -> Bool {
        let first = outstanding.add(1, ordering: .relaxed).newValue == 1
        if first { progress.store(now.bitPattern, ordering: .relaxed) }
        return first
    }

    /// A write was taken by the kernel (or failed: the connection is closing either way).
    public func writeDone(now: Double) {
        outstanding.subtract(1, ordering: .relaxed)
        progress.store(now.bitPattern, ordering: .relaxed)
        active.store(now.bitPattern, ordering: .relaxed)
    }

    public var state: ConnectionEviction.Activity {
        if outstanding.load(ordering: .relaxed) > 0 { return .writing(lastProgress: Double(bitPattern: progress.load(ordering: .relaxed))) }
        if requests.load(ordering: .relaxed) > 0 { return .busy }
        return .idle(since: Double(bitPattern: active.load(ordering: .relaxed)))
    }
}
