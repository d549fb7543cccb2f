import OriginState
import Synchronization

extension StreamRegistry {
    /// Holds a blocking-reload request (`_HLS_msn`) until `variant`'s playlist (or I-frame
    /// playlist) as served lists `sequence`, the stream stops changing, or `seconds` pass. No
    /// thread waits.
    public func waitUntilListed(stream: String, variant: String, iFrames: Bool = false, sequence: Int, seconds: Double) async {
        await waiters.wait(for: .init(stream: stream, variant: variant, iFrames: iFrames), sequence: sequence, seconds: seconds) {
            self.published.withLock { published in
                guard let s = published.state.streams[stream], s.isLive, let v = published.served[stream]?.variants[variant],
                      let listed = iFrames ? v.iFrames : v.playlist else { return true }
                return Self.listed(listed) >= sequence
            }
        }
    }

    /// Requests held by blocking reload right now.
    public var heldRequests: Int { waiters.count }
}
