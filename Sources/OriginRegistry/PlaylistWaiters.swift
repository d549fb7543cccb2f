import Synchronization

/// Requests held by blocking reload, each a suspended task (a continuation, no thread),
/// woken when its variant lists the sequence number it waits for, when the stream stops
/// changing, when its time is up, or when the client goes away (task cancellation).
final class PlaylistWaiters: Sendable {
    struct Key: Hashable, Sendable {
        let stream: String
        let variant: String
        /// The variant's I-frame playlist, whose sequence numbers are its own.
        var iFrames = false
    }

    private struct Waiter {
        let id: Int
        let key: Key
        let sequence: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var next = 0
        var waiting: [Int: Waiter] = [:]
    }

    private let state = Mutex(State())

    /// Number of requests held now.
    var count: Int { state.withLock { $0.waiting.count } }

    /// How a held request waits out its time: `MonotonicClock.sleep` in the server, simulated
    /// time in tests. It throws (or returns early) when its task is cancelled.
    private let sleep: @Sendable (Double) async throws -> Void

    init(sleep: @escaping @Sendable (Double) async throws -> Void) {
        self.sleep = sleep
    }

    /// Returns when `key` lists `sequence` (as `isListed` tells, checked under the same lock
    /// that `wake` takes, so no publication slips between the check and the wait), or after
    /// `seconds`. The time runs in a child task beside the wait, so it is cancelled with the
    /// request and runs on the executor the request runs on (a test's simulated time).
    func wait(for key: Key, sequence: Int, seconds: Double, isListed: @escaping @Sendable () -> Bool) async {
        let id = state.withLock { s in
            defer { s.next += 1 }
            return s.next
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.suspend(id, key: key, sequence: sequence, isListed: isListed) }
            group.addTask { [sleep] in try? await sleep(seconds) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Suspends until woken (`wake`, `wakeAll`) or cancelled (its time is up, or the client went).
    private func suspend(_ id: Int, key: Key, sequence: Int, isListed: @Sendable () -> Bool) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let registered = state.withLock { s -> Bool in
                    guard !isListed(), !Task.isCancelled else { return false }
                    s.waiting[id] = Waiter(id: id, key: key, sequence: sequence, continuation: continuation)
                    return true
                }
                if !registered { continuation.resume() }
            }
        } onCancel: {
            resume(id)
        }
    }

    /// Wakes the requests on `key` waiting for `listed` or anything before it (`Int.max`:
    /// all of them, the playlist will not grow again).
    func wake(_ key: Key, listed: Int) {
        take { $0.key == key && $0.sequence <= listed }
    }

    /// Wakes every request on `stream` (it ended or was removed: nothing more will be listed).
    func wakeAll(stream: String) {
        take { $0.key.stream == stream }
    }

    private func resume(_ id: Int) {
        take { $0.id == id }
    }

    /// Removes the matching waiters in one step and resumes them outside the lock.
    private func take(where matches: (Waiter) -> Bool) {
        let woken = state.withLock { s in
            let matching = s.waiting.values.filter(matches)
            for waiter in matching { s.waiting.removeValue(forKey: waiter.id) }
            return matching
        }
        for waiter in woken { waiter.continuation.resume() }
    }
}
