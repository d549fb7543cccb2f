import CFFmpeg
import Foundation
import Synchronization

/// Lets blocking libavformat I/O (opening a URL, reading a stalled network feed) give up: the
/// interrupt callback returns 1 once the deadline has passed or `cancel()` was called.
final class InterruptDeadline: Sendable {
    private struct State {
        var deadline: ContinuousClock.Instant?
        var cancelled = false
    }
    private let state = Mutex(State())
    let timeout: Duration
    /// Cancelling the parent (the pipeline stopping) interrupts this one too.
    private let parent: InterruptDeadline?

    init(timeout: Duration, parent: InterruptDeadline? = nil) {
        self.timeout = timeout
        self.parent = parent
    }

    /// Starts a new wait of `timeout` (before opening, and before each read).
    func arm() { arm(for: timeout) }
    func arm(for wait: Duration) { state.withLock { $0.deadline = .now + wait } }
    func disarm() { state.withLock { $0.deadline = nil } }
    func cancel() { state.withLock { $0.cancelled = true } }

    var shouldInterrupt: Bool {
        isCancelled || state.withLock { s in s.deadline.map { ContinuousClock.now > $0 } ?? false }
    }
    var isCancelled: Bool { state.withLock { $0.cancelled } || parent?.isCancelled == true }

    /// Installs the callback on `context`. The context must not outlive `self`: MediaInput
    /// keeps both and frees the context first.
    func install(on context: UnsafeMutablePointer<AVFormatContext>) {
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        sideline_set_interrupt(context, { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<InterruptDeadline>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
        }, opaque)
    }
}
