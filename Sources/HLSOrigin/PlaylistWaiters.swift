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
        var timer: Task<Void, Never>?
    }

    private struct State {
        var next = 0
        var waiting: [Int: Waiter] = [:]
    }

    private let state = Mutex(State())

    /// Number of requests held now.
    var count: Int { state.withLock { $0.waiting.count } }

    /// Returns when `key` lists `sequence` (as `isListed` tells, checked under the same lock
    /// that `wake` takes, so no publication slips between the check and the wait), or after
    /// `seconds`.
    func wait(for key: Key, sequence: Int, seconds: Double, isListed: @Sendable () -> Bool) async {
        let id = state.withLock { s in
            defer { s.next += 1 }
            return s.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let registered = state.withLock { s -> Bool in
                    guard !isListed(), !Task.isCancelled else { return false }
                    s.waiting[id] = Waiter(id: id, key: key, sequence: sequence, continuation: continuation)
                    return true
                }
                guard registered else { return continuation.resume() }
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: .seconds(seconds))
                    self?.resume(id)
                }
                let stillWaiting = state.withLock { s -> Bool in
                    guard s.waiting[id] != nil else { return false }
                    s.waiting[id]?.timer = timer
                    return true
                }
                if !stillWaiting { timer.cancel() }
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
        for waiter in woken {
            waiter.timer?.cancel()
            waiter.continuation.resume()
        }
    }
}
