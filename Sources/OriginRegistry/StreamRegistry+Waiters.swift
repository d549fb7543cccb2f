import OriginPolicy
import OriginState
import Synchronization

extension StreamRegistry {
    /// Holds a blocking-reload request (`_HLS_msn`) until `variant`'s playlist (or I-frame
    /// playlist) as served lists `sequence` (with `part`: that part of it, or anything later),
    /// the stream stops changing, or `seconds` pass. No thread waits, and a request wakes only
    /// when what it waits for is listed, not at every part.
    public func waitUntilListed(stream: String, variant: String, iFrames: Bool = false, sequence: Int, part: Int? = nil, seconds: Double) async {
        let position = PublishedEdge.position(sequence: sequence, part: part)
        await waiters.wait(for: .init(stream: stream, variant: variant, iFrames: iFrames), sequence: position, seconds: seconds) {
            self.published.withLock { published in
                guard let s = published.state.streams[stream], s.isLive, let v = published.served[stream]?.variants[variant],
                      let listed = iFrames ? v.iFrames : v.playlist else { return true }
                return Self.listed(listed) >= position
            }
        }
    }

    /// Requests held by blocking reload right now.
    public var heldRequests: Int { waiters.count }
}
