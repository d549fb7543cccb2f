/// What a push's status line shows (`PushUploader.snapshot`).
public struct PushUploadSnapshot: Sendable, Equatable {
    /// Bits per second the last measured uploads went up at; nil before any.
    public var uploadBitRate: Int?
    public var plan: PushLadder.Plan
    /// Segments held (every rung), and the oldest of them.
    public var queued: Int
    public var oldest: PushQueue.Segment?
    /// Segments the server listed.
    public var acknowledged: Int
    public var lastFailure: String?
}
