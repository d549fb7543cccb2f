/// How the input thread hands frames and audio to one variant's queue.
///
/// A file encoded as fast as possible waits for the slowest variant (nothing is lost, the
/// whole run just slows down). A live input cannot wait: a camera keeps sending whether or not
/// an encoder keeps up, and if the input thread blocked, every sibling variant and the
/// input's own buffers would fall behind with it. So on a live input a variant whose queue is
/// full loses the frame (counted), except a frame that starts a segment: that one carries the
/// forced IDR every variant needs at the same media time, so it is never dropped. Audio is
/// never dropped either (it is small). Those essential messages get extra room; a variant so
/// far behind that even that room is full has stalled, and is given up on rather than
/// letting the queue grow without bound.
public struct FeedPolicy: Sendable, Equatable {
    /// Whether the input thread may wait for room (a file encoded as fast as possible).
    public let mayWait: Bool
    /// Video frames a variant may hold before droppable frames are dropped.
    public let capacity: Int
    /// Messages a variant may hold, counting essential ones, before it counts as stalled.
    public let essentialLimit: Int

    /// Frames a variant may fall behind before the input leaves frames out for it: one second.
    /// It was 8 messages, audio included, and a start (every encoder of every stream warming up
    /// at once) or an IDR on a busy machine overran that; the effort rule steps a rung down once
    /// it is 0.3 s behind, well before this fills. The frames are references to the decoded
    /// picture the variants share, so a second of 720p holds at most 41 MB (1280 x 720 x 1.5
    /// bytes x 30).
    public static func queueCapacity(frameRate: FrameRate) -> Int {
        max(8, Int(frameRate.value.rounded(.up)))
    }

    public static func forInput(live: Bool, capacity: Int) -> FeedPolicy {
        FeedPolicy(mayWait: !live, capacity: capacity, essentialLimit: capacity * 16)
    }

    public enum Decision: Equatable {
        /// Queue it (waiting for room if the policy allows).
        case send
        /// Leave this frame out for this variant and count it.
        case drop
        /// The variant is stalled: stop feeding it and report it failed.
        case abandon
    }

    /// What to do with a message when the variant already holds `queued` messages, of which
    /// `framesQueued` are video frames (all of them when not given).
    public func decide(queued: Int, essential: Bool, framesQueued: Int? = nil) -> Decision {
        if mayWait || ((framesQueued ?? queued) < capacity && queued < essentialLimit) { return .send }
        if !essential { return .drop }
        return queued < essentialLimit ? .send : .abandon
    }
}
