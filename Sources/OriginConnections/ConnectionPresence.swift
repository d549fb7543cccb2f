import Synchronization

/// Whether a connection's client is still there, for the requests it has held: a blocking
/// reload or a hinted part waits for its playlist or part, or for its client to go away,
/// whichever comes first, so a player that left holds nothing at the server for the rest of
/// its three target durations. Hummingbird does not cancel a request's task when its
/// connection's input ends (it allows half-closure), so the connection's handler
/// (`ClientConnectionLimiter`) says it here: on the end of input, and when the connection
/// closes. A client that half-closes its side after sending is taken as gone too: its held
/// request is answered at once with what is current instead of being held.
public final class ConnectionPresence: Sendable {
    private struct State {
        var gone = false
        var next = 0
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// The client went away (input ended, or the connection closed): every wait ends.
    public func leave() {
        let waiting = state.withLock { state in
            state.gone = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for waiter in waiting { waiter.resume() }
    }

    public var isGone: Bool { state.withLock { $0.gone } }

    /// Returns when the client goes away, or when the task is cancelled (the wait it races
    /// with ended first).
    public func waitUntilGone() async {
        let id = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waiting = state.withLock { state -> Bool in
                    guard !state.gone, !Task.isCancelled else { return false }
                    state.waiting[id] = continuation
                    return true
                }
                if !waiting { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
        }
    }
}
