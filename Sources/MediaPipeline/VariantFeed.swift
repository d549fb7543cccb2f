import CFFmpeg
import PipelineCore
import SidelineCore
import Synchronization

// What the input thread does with each frame and audio packet for one variant is
// `FeedPolicy`'s decision (PipelineCore, tested without FFmpeg); these carry it out on the
// variant's queue.

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
    /// Every variant gets its own reference to the AAC packet; audio is never dropped (but for a
    /// rung `leavingOut` names: shed, or waiting for a segment start to come back).
    func fanOut(audio packet: UnsafeMutablePointer<AVPacket>, policy: FeedPolicy, leavingOut: Set<String> = []) {
        for worker in self where leavingOut.isEmpty || !leavingOut.contains(worker.spec.name) {
            switch policy.decide(queued: worker.queue.count, essential: true) {
            case .send, .drop:
                if let owned = OwnedPacket(cloning: packet) { worker.feed(.audio(owned), policy: policy) }
            case .abandon:
                worker.abandonAsStalled(policy: policy)
            }
        }
    }
}
