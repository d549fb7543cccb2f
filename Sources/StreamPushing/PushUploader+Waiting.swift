import Synchronization

extension PushUploader {
    /// Wakes the run loop (or its next wait) for something new: a segment, a format, a plan,
    /// a stop.
    func wake() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let waiter = s.waiter else {
                s.woken = true
                return nil
            }
            s.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Waits until something new may be sent, or the drain deadline passes. No polling: every
    /// change that can give the run loop work wakes it.
    func waitForWork() async {
        let deadline = state.withLock { $0.drainDeadline }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in await waitForWake() }
            if let deadline {
                group.addTask { [self] in try? await sleep(max(0, deadline - clock())) }
            }
            await group.next()
            group.cancelAll()
        }
    }

    func waitForWake() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.woken || Task.isCancelled {
                        s.woken = false
                        return true
                    }
                    s.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume()
        }
    }
}
