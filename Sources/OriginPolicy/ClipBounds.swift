/// What clip requests may make the server keep (`clips` in the config): how long one clip is,
/// how many are made or sent at once, and how much scratch disk they hold together. Pure: the
/// route passes what is in use now.
///
/// Why: any viewer of an open stream may ask for clips, and each is remuxed into a scratch file
/// the length of its range before it is sent; 20 HEAD requests once left 20 whole MP4 files.
public struct ClipBounds: Sendable, Equatable {
    /// The longest clip in seconds.
    public var maxDuration: Double
    /// Clips being made or sent at once.
    public var maxInProgress: Int
    /// Bytes of scratch files at once.
    public var scratchLimitBytes: Int

    /// The defaults of `Config/sideline.yaml`: ten minutes, four at once, 2 GiB.
    public init(maxDuration: Double = 600, maxInProgress: Int = 4, scratchLimitBytes: Int = 2048 << 20) {
        self.maxDuration = maxDuration
        self.maxInProgress = maxInProgress
        self.scratchLimitBytes = scratchLimitBytes
    }

    /// Seconds a client is told to wait when clips are busy: a clip of a few minutes is made in
    /// seconds (packets are copied, nothing is encoded).
    public static let retryAfter = 5

    /// 400 when the asked range is longer than a clip may be.
    public func refusal(duration: Double) -> Refusal? {
        guard !(duration <= maxDuration) else { return nil }
        return .malformed("a clip may be at most \(Int(maxDuration)) s (clips.max_duration); ask for a shorter range with start and end")
    }

    /// 503 with Retry-After when one more clip of about `bytes` would pass a bound, given the
    /// clips `inProgress` and the scratch bytes they hold (`scratchInUse`); 400 for a clip that
    /// alone needs more than the whole scratch space.
    public func refusal(adding bytes: Int, inProgress: Int, scratchInUse: Int) -> Refusal? {
        if inProgress >= maxInProgress {
            return Refusal(.overloaded, "\(inProgress) clips are being made or sent, the most at once (clips.max_in_progress); try again shortly",
                           retryAfter: Self.retryAfter, audience: .operators)
        }
        // One that could never fit is not worth a retry.
        if bytes > scratchLimitBytes {
            return .malformed("this range needs more scratch space than clips.scratch_limit_mb allows; ask for a shorter range with start and end")
        }
        let (total, overflow) = scratchInUse.addingReportingOverflow(max(0, bytes))
        if overflow || total > scratchLimitBytes {
            return Refusal(.overloaded, "the clips being made or sent hold the scratch space (clips.scratch_limit_mb); try again shortly or ask for a shorter range",
                           retryAfter: Self.retryAfter, audience: .operators)
        }
        return nil
    }
}
