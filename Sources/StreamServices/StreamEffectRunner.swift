import HLSPlaylist
import StreamPublishing
import Synchronization

/// One stream's serial runner: what its core decides is carried out here, after the core's
/// lock, one job at a time, in the order the core decided it.
///
/// Jobs are queued while the core's lock is held (so the queue's order is the core's), and the
/// thread that queued them runs the queue once the lock is released: whoever holds the runner
/// runs every job queued so far, so when `run()` returns, the caller's own jobs are done. Disk
/// writes, playlist rendering and gzip no longer hold the core: a part, a tick or a segment of
/// another rung decides while an earlier entry is written. A caller still returns only once the
/// queue it joined has run (what it decided is carried out by then, and `.replaces` needs it).
final class StreamEffectRunner: Sendable {
    enum Job: Sendable {
        /// The segment the core is about to list as `variant`'s next real entry.
        case stage(EncodedSegment, variant: String)
        /// What the core decided (`PublishingEffect`).
        case publishing(PublishingEffect)
        /// A part the core listed: under which entry, with which sequence number and edge.
        case part(EncodedPart, variant: String, listing: EdgeLedger.PartListing)
        /// The stream ended: every playlist closes with EXT-X-ENDLIST.
        case end
    }

    private let queue = Mutex<[Job]>([])
    private let runner = Mutex(())
    private let perform: @Sendable (Job) -> Void

    init(perform: @escaping @Sendable (Job) -> Void) {
        self.perform = perform
    }

    /// Queues `jobs`; call while holding the core's lock, with what that call decided.
    func enqueue(_ jobs: [Job]) {
        guard !jobs.isEmpty else { return }
        queue.withLock { $0.append(contentsOf: jobs) }
    }

    /// Runs every queued job, in order; call after releasing the core's lock.
    func run() {
        runner.withLock { _ in
            while true {
                let batch = queue.withLock { pending -> [Job] in
                    let taken = pending
                    pending = []
                    return taken
                }
                if batch.isEmpty { return }
                for job in batch { perform(job) }
            }
        }
    }
}
