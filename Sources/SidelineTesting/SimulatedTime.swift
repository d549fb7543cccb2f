import Synchronization

/// Simulated time for code that sleeps while other tasks work (an upload and the watchdog
/// beside it, a link that takes seconds, an encoder that makes a segment every 2 s). The
/// tasks a test starts here (`start`) run as jobs of this executor, their child tasks too,
/// and every wait goes through `sleep`. `run(until:)` runs every job that is ready, and only
/// when none is left moves the clock (a `ManualClock`) to the earliest sleeper's deadline and
/// wakes it: time moves only when nothing else can happen, so a 30 s cut is simulated in
/// milliseconds and in the same order on every run, whatever the machine's load.
///
/// Nothing here blocks: `run` works through the jobs on the caller's thread and returns when
/// nothing is left to happen (or a condition holds, or a time limit is reached).
public final class SimulatedTime: TaskExecutor {
    public let clock: ManualClock

    private struct Sleeper {
        let deadline: Double
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var jobs: [UnownedJob] = []
        /// By registration number: ties in deadline wake in the order they slept.
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before they were registered.
        var cancelled: Set<Int> = []
        var next = 0
    }

    private let state = Mutex(State())

    public init(start: Double = 1000) {
        clock = ManualClock(start)
    }

    public var now: Double { clock.now }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        state.withLock { $0.jobs.append(job) }
    }

    /// Starts `operation` as a task whose jobs, and its child tasks' jobs, run here.
    @discardableResult
    public func start<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> Task<T, Never> {
        Task(executorPreference: self, operation: operation)
    }

    /// Waits `seconds` of simulated time (`.infinity`: until cancelled); throws
    /// `CancellationError` when the task is cancelled first. The `sleep` the code under test takes.
    public func sleep(_ seconds: Double) async throws {
        let (id, deadline) = state.withLock { s in
            defer { s.next += 1 }
            return (s.next, clock.now + max(0, seconds))
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { s -> Bool in
                    if s.cancelled.remove(id) != nil { return true }
                    s.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper = state.withLock { s -> Sleeper? in
                guard let sleeper = s.sleepers.removeValue(forKey: id) else {
                    s.cancelled.insert(id)
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The sleep as the code under test takes it.
    public var sleeper: @Sendable (Double) async throws -> Void { { try await self.sleep($0) } }

    /// Runs what is ready, then wakes the next sleepers, again and again, until `done` holds
    /// (true), nothing is left to happen before `limit` (false; the clock is then at `limit`
    /// when that is finite), or a million jobs ran without `done` (false: something spins).
    @discardableResult
    public func run(until done: () -> Bool = { false }, limit: Double = .infinity) -> Bool {
        var jobs = 0
        while true {
            while let job = state.withLock({ s in s.jobs.isEmpty ? nil : s.jobs.removeFirst() }) {
                job.runSynchronously(on: asUnownedTaskExecutor())
                jobs += 1
                if jobs > 1_000_000 { return false }
            }
            if done() { return true }
            let due = state.withLock { s -> [Sleeper] in
                guard let next = s.sleepers.min(by: { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }),
                      next.value.deadline.isFinite, next.value.deadline <= limit else { return [] }
                let deadline = next.value.deadline
                let woken = s.sleepers.filter { $0.value.deadline <= deadline }.sorted { $0.key < $1.key }
                for (id, _) in woken { s.sleepers[id] = nil }
                return woken.map(\.value)
            }
            guard let deadline = due.first?.deadline else {
                if limit.isFinite && clock.now < limit { clock.advance(by: limit - clock.now) }
                return false
            }
            if deadline > clock.now { clock.advance(by: deadline - clock.now) }
            for sleeper in due { sleeper.continuation.resume() }
        }
    }

    /// Runs until `seconds` of simulated time have passed (or nothing is left to happen then).
    public func run(for seconds: Double) {
        run(limit: clock.now + seconds)
    }
}
