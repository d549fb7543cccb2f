import Foundation

/// A first-in-first-out queue between two threads the pipeline owns (never used from Swift
/// concurrency). `put` waits while the queue is full, which is what paces a file encoded as
/// fast as possible against a slow encoder; `offer` never waits, for a live input that cannot
/// be slowed down.
///
/// `@unchecked Sendable`: every access to `items` and `closed` happens with `condition` locked.
public final class BoundedQueue<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element] = []
    private var head = 0
    private var closed = false
    public let capacity: Int

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Adds `element`, waiting for room. Returns false if the queue was closed.
    @discardableResult
    public func put(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed && items.count - head >= capacity { condition.wait() }
        guard !closed else { return false }
        items.append(element)
        condition.broadcast()
        return true
    }

    public enum OfferResult: Equatable { case added, full, closed }

    /// Adds `element` without waiting, if fewer than `limit` elements are queued. `limit` may
    /// exceed `capacity`: elements that must not be dropped get more room than those that may.
    public func offer(_ element: Element, limit: Int) -> OfferResult {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return .closed }
        guard items.count - head < limit else { return .full }
        items.append(element)
        condition.broadcast()
        return .added
    }

    /// The next element, waiting for one; nil once the queue is closed and empty.
    public func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.count - head == 0 && !closed { condition.wait() }
        guard items.count - head > 0 else { return nil }
        let element = items[head]
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return element
    }

    /// No more puts; takers drain what is left, then get nil.
    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    public var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return items.count - head
    }
}
