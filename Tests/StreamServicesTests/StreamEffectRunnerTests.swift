import Foundation
@testable import StreamServices
import StreamPublishing
import Synchronization
import Testing

/// The stream's serial runner: jobs queued under the core's lock run after it, one at a time,
/// in the core's order, and a caller's own jobs are done when its `run()` returns, whichever
/// thread ran them.
@Suite struct StreamEffectRunnerTests {
    /// Four threads, each deciding 500 times under one "core" lock (a counter standing for the
    /// core's order) and running the queue after it. Every job runs once, in the counter's
    /// order, never two at once, and each caller finds its own job done on return.
    @Test func jobsRunInTheCoresOrderOneAtATimeAndAreDoneOnReturn() {
        final class Record: Sendable {
            let performed = Mutex<[Int]>([])
            let running = Atomic<Int>(0)
            let overlaps = Atomic<Int>(0)
            /// The core's lock, over the count of decisions so far.
            let core = Mutex(0)
            /// Callers whose job was not done when their `run()` returned.
            let late = Atomic<Int>(0)
        }
        let record = Record()
        let runner = StreamEffectRunner { job in
            guard case let .publishing(.numberFrom(slot)) = job else { return }
            if record.running.add(1, ordering: .sequentiallyConsistent).newValue > 1 { record.overlaps.add(1, ordering: .relaxed) }
            record.performed.withLock { $0.append(slot) }
            record.running.subtract(1, ordering: .sequentiallyConsistent)
        }
        // Threads of their own, as the pipeline's and the ticker's are.
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread {
                for _ in 0..<500 {
                    let mine = record.core.withLock { decided in
                        decided += 1
                        runner.enqueue([.publishing(.numberFrom(slot: decided))])
                        return decided
                    }
                    runner.run()
                    if !record.performed.withLock({ $0.contains(mine) }) { record.late.add(1, ordering: .relaxed) }
                }
                group.leave()
            }.start()
        }
        group.wait()
        let performed = record.performed.withLock { $0 }
        #expect(performed == Array(1...2000), "every job once, in the order decided")
        #expect(record.overlaps.load(ordering: .relaxed) == 0, "one job at a time")
        #expect(record.late.load(ordering: .relaxed) == 0, "a caller's job is done when its run() returns")
    }

    @Test func nothingQueuedRunsNothing() {
        let ran = Atomic<Int>(0)
        let runner = StreamEffectRunner { _ in ran.add(1, ordering: .relaxed) }
        runner.enqueue([])
        runner.run()
        #expect(ran.load(ordering: .relaxed) == 0)
    }
}
