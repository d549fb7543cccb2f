import Foundation
import Logging
import PipelineCore
import SidelineCore
import Synchronization

/// Reopens a lost live input on a thread of its own, with exponential backoff
/// (`Backoff.inputReconnect`: 0.5 s doubling to 8 s between attempts), while the input thread keeps the slate on air. The input thread
/// takes the opened input when it is ready to switch (at a segment boundary).
///
/// Why `@unchecked Sendable` is sound: the opened `MediaInput` is created on the reconnect
/// thread, handed over under the lock exactly once, and from then on used only by the input
/// thread. The reconnect thread never touches it after storing it.
final class InputReconnector: @unchecked Sendable {
    private let lock = NSLock()
    private var opened: MediaInput?
    private let cancelled = Atomic<Bool>(false)
    private let open: () throws(PipelineError) -> MediaInput
    /// True while a drill holds the input down: attempts fail as if the camera were still gone.
    private let isHeldDown: @Sendable () -> Bool
    private let logger: Logger

    init(logger: Logger, isHeldDown: @escaping @Sendable () -> Bool, open: @escaping () throws(PipelineError) -> MediaInput) {
        self.logger = logger
        self.isHeldDown = isHeldDown
        self.open = open
    }

    func start() {
        let thread = Thread { self.run() }
        thread.name = "sideline.reconnect"
        thread.start()
    }

    /// Stops trying (the pipeline is stopping, or the input came back).
    func cancel() { cancelled.store(true, ordering: .relaxed) }

    var isReady: Bool { lock.withLock { opened != nil } }

    /// The reopened input, once; nil until it is ready.
    func take() -> MediaInput? {
        lock.withLock {
            defer { opened = nil }
            return opened
        }
    }

    private func run() {
        var backoff = Backoff.inputReconnect
        var attempt = 0
        while !cancelled.load(ordering: .relaxed) {
            attempt += 1
            do {
                if isHeldDown() { throw PipelineError.readFailed(input: "", reason: "held down by a drill") }
                let input = try open()
                if cancelled.load(ordering: .relaxed) { return }
                lock.withLock { opened = input }
                logger.notice("input reopened", metadata: ["attempt": "\(attempt)"])
                return
            } catch {
                if attempt == 1 || attempt % 10 == 0 {
                    logger.warning("input still lost; retrying", metadata: ["attempt": "\(attempt)", "next-in-seconds": "\(backoff.nextDelay)", "error": "\(error)"])
                }
            }
            backoff.waitAfterFailure { cancelled.load(ordering: .relaxed) }
        }
    }
}
