import Foundation

/// CPU time in seconds (user + system), for measurements that must not count waiting: the
/// calibration of what encoding costs, and `sideline encode`'s summary line.
public enum CPUTime {
    /// The whole process, every thread.
    public static func process() -> Double { read(CLOCK_PROCESS_CPUTIME_ID) }

    /// The calling thread only.
    public static func thread() -> Double { read(CLOCK_THREAD_CPUTIME_ID) }

    private static func read(_ clock: clockid_t) -> Double {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
