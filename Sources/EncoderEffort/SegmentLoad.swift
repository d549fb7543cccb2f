/// What one rung's encoder thread measured over one segment: plain numbers, so the rule that
/// reads them is tested without an encoder.
public struct SegmentLoad: Sendable, Equatable {
    /// The segment's media duration, in seconds.
    public var mediaSeconds: Double
    /// Wall-clock seconds the rung's thread spent scaling and encoding the segment's frames
    /// (waiting for a frame not included). Above `mediaSeconds` it cannot keep up.
    public var busySeconds: Double
    /// Frames waiting in the rung's queue when its next segment began: how far behind it is.
    public var backlogFrames: Int
    /// Frames the input left out for this rung during the segment because its queue was full.
    public var droppedFrames: Int

    public init(mediaSeconds: Double, busySeconds: Double, backlogFrames: Int = 0, droppedFrames: Int = 0) {
        self.mediaSeconds = mediaSeconds
        self.busySeconds = busySeconds
        self.backlogFrames = backlogFrames
        self.droppedFrames = droppedFrames
    }

    /// Busy time as a share of the media time: 1 is exactly keeping up.
    public var busyShare: Double { mediaSeconds > 0 ? busySeconds / mediaSeconds : 0 }
}
