import CFFmpeg
import Synchronization

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
struct FeedPolicy: Sendable, Equatable {
    /// Whether the input thread may wait for room (a file encoded as fast as possible).
    let mayWait: Bool
    /// Video frames a variant may hold before droppable frames are dropped.
    let capacity: Int
    /// Messages a variant may hold, counting essential ones, before it counts as stalled.
    let essentialLimit: Int

    static func forInput(live: Bool, capacity: Int) -> FeedPolicy {
        FeedPolicy(mayWait: !live, capacity: capacity, essentialLimit: capacity * 16)
    }

    enum Decision: Equatable {
        /// Queue it (waiting for room if the policy allows).
        case send
        /// Leave this frame out for this variant and count it.
        case drop
        /// The variant is stalled: stop feeding it and report it failed.
        case abandon
    }

    /// What to do with a message when the variant already holds `queued` messages, of which
    /// `framesQueued` are video frames (all of them when not given).
    func decide(queued: Int, essential: Bool, framesQueued: Int? = nil) -> Decision {
        if mayWait || ((framesQueued ?? queued) < capacity && queued < essentialLimit) { return .send }
        if !essential { return .drop }
        return queued < essentialLimit ? .send : .abandon
    }
}

extension VariantWorker {
    /// Queues a message the policy has admitted: waits for room on a file encoded as fast as
    /// possible, never on a live input.
    func feed(_ message: VariantMessage, policy: FeedPolicy) {
        let isVideo = if case .video = message { true } else { false }
        // Counted before it is queued, so the worker's decrement never comes first.
        if isVideo { queuedFrames.add(1, ordering: .relaxed) }
        let added = if policy.mayWait {
            queue.put(message)
        } else {
            queue.offer(message, limit: policy.essentialLimit) == .added
        }
        if isVideo && !added { queuedFrames.subtract(1, ordering: .relaxed) }
    }

    func abandonAsStalled(policy: FeedPolicy) {
        abandon(reason: "fell more than \(policy.essentialLimit) messages behind the live input")
    }
}

extension [VariantWorker] {
    /// Every variant gets its own reference to the AAC packet; audio is never dropped.
    func fanOut(audio packet: UnsafeMutablePointer<AVPacket>, policy: FeedPolicy) {
        for worker in self {
            switch policy.decide(queued: worker.queue.count, essential: true) {
            case .send, .drop:
                if let owned = OwnedPacket(cloning: packet) { worker.feed(.audio(owned), policy: policy) }
            case .abandon:
                worker.abandonAsStalled(policy: policy)
            }
        }
    }
}
