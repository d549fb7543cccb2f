import SidelineCore

/// When a stream's pipeline is opened, retried, abandoned and opened again: events in,
/// decisions out, over the monotonic times the caller passes. The server owns the threads
/// and the pipeline objects; this owns the rules.
///
/// - A pipeline that cannot be opened (a camera that is down when a recorded stream starts)
///   is retried with the one `Backoff` (`encoderRecovery`: 1 s doubling to 30 s) until it
///   opens or the stream stops; the recording is served meanwhile.
/// - A running pipeline none of whose segments was accepted for longer than the watchdog
///   allows (`WatchdogRule`) is abandoned, and a new one opened after it.
/// - Nothing is opened or restarted once the stream stops (shutdown, end, removal), and a
///   pipeline that opens after that is discarded.
public struct PipelineSupervisor: Sendable, Equatable {
    public let watchdog: WatchdogRule
    private var backoff: Backoff
    /// Set at shutdown, end or removal.
    public private(set) var stopping = false
    /// An opening loop is running.
    public private(set) var opening = false
    /// A pipeline is installed and running (not yet finished or abandoned).
    public private(set) var running: Bool
    /// Failed attempts since the last pipeline opened.
    public var failedAttempts: Int { backoff.failures }

    /// `running`: a pipeline was opened before the supervisor started (a new stream's, which
    /// must fail before anything is served).
    public init(watchdog: WatchdogRule, running: Bool, backoff: Backoff = .encoderRecovery) {
        self.watchdog = watchdog
        self.running = running
        self.backoff = backoff
    }

    /// Whether to start an opening loop now: not while stopping, not twice at once.
    public mutating func beginOpening() -> Bool {
        guard !stopping, !opening else { return false }
        opening = true
        return true
    }

    /// An attempt failed at `now`: the seconds to wait before the next one, or nil when the
    /// loop ends (the stream is stopping).
    public mutating func openFailed(at now: Double) -> Double? {
        guard !stopping else {
            opening = false
            return nil
        }
        return backoff.failed(at: now)
    }

    /// An attempt succeeded: whether to install and start the pipeline (false when the stream
    /// stopped meanwhile: close it instead).
    public mutating func opened() -> Bool {
        opening = false
        backoff.succeeded()
        guard !stopping else { return false }
        running = true
        return true
    }

    /// Whether an opening loop still waiting between attempts should go on.
    public var keepsOpening: Bool { !stopping }

    /// The watchdog's look at `now`: the seconds the running pipeline has been quiet when that
    /// is too long (abandon it and open a new one: `beginOpening`), nil while it is fine.
    /// A pipeline that has finished by itself (a file played to its end) is left alone.
    public mutating func watch(now: Double, runStartedAt: Double?, lastAccepted: Double?, finished: Bool) -> Double? {
        guard running, !stopping, !finished, let runStartedAt,
              let quiet = watchdog.stuckFor(startedAt: runStartedAt, lastAccepted: lastAccepted, now: now) else { return nil }
        running = false
        return quiet
    }

    /// The stream stops: nothing more is opened or restarted.
    public mutating func stop() {
        stopping = true
    }
}
