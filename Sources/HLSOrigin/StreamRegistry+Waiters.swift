import OriginPolicy
import Synchronization

extension StreamRegistry {
    /// Holds a blocking-reload request (`_HLS_msn`) until `variant`'s playlist (or I-frame
    /// playlist) lists `sequence`, the stream stops changing, or `seconds` pass. No thread waits.
    public func waitUntilListed(stream: String, variant: String, iFrames: Bool = false, sequence: Int, seconds: Double) async {
        await waiters.wait(for: .init(stream: stream, variant: variant, iFrames: iFrames), sequence: sequence, seconds: seconds) {
            self.streams.withLock { streams in
                guard let s = streams[stream], s.phase != .ended, s.phase != .removed, let v = s.variants[variant],
                      let listed = iFrames ? v.iFramePlaylist : v.playlist else { return true }
                return listed.complete || listed.lastSequence >= sequence
            }
        }
    }

    /// Requests held by blocking reload right now.
    public var heldRequests: Int { waiters.count }

    /// Answers the requests held for what a new version lists; an ended playlist answers all
    /// of its held requests, since it will never list more.
    func wakeWaiters(stream: String, variant: String, playlist: ServedMediaPlaylist, iFrames: ServedMediaPlaylist?) {
        let upTo = { (served: ServedMediaPlaylist) in served.complete ? Int.max : served.lastSequence }
        waiters.wake(.init(stream: stream, variant: variant), listed: upTo(playlist))
        if let iFrames { waiters.wake(.init(stream: stream, variant: variant, iFrames: true), listed: upTo(iFrames)) }
    }
}
