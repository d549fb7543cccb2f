import IngestPolicy
import NIOPosix
import OriginPolicy
import StreamServices
import Synchronization

/// Uploads in flight and the bytes of their bodies held in memory, against `IngestBounds` for
/// the whole server and against each pushed stream's share of them (`IngestBounds.share`), and
/// the thread each stream's uploads are carried out on. Shared by every router the ingest
/// routes are added to, so the bounds hold for the whole server.
///
/// Why a thread per stream: a stream's uploads wait for one another (a playlist must see every
/// segment received before it), and they block (checks, fsync, publishing, taking a ladder).
/// On one pool shared by every stream, two uploads of one stream held both of its threads, one
/// working and one waiting for it, and every other stream's uploads queued behind them
/// (issue 33). Each stream's lane is one thread of its own, so its uploads run one at a time
/// in the order they came and another stream's never wait for them. The streams are the
/// config's pushed streams: a fixed, small set, never grown by a request.
final class IngestLoad: Sendable {
    let bounds: IngestBounds
    /// Each stream's share of `bounds`.
    let share: IngestBounds
    private let inUse = Mutex<Counts>(Counts())
    private let lanes: Mutex<[String: NIOThreadPool]>
    private let streams: Set<String>

    private struct Counts {
        var uploads = 0
        var bytes = 0
        var byStream: [String: (uploads: Int, bytes: Int)] = [:]
    }

    /// `streams`: the pushed streams' names (every upload's stream is one of them: the route
    /// checks its token first).
    init(bounds: IngestBounds, streams: [String]) {
        self.bounds = bounds
        self.share = bounds.share(among: streams.count)
        self.streams = Set(streams)
        self.lanes = Mutex([:])
    }

    deinit {
        for lane in lanes.withLock({ Array($0.values) }) { lane.shutdownGracefully { _ in } }
    }

    /// The thread `stream`'s uploads are carried out on, started with its first upload. A
    /// name that is no pushed stream's (the route refuses those before) shares one lane.
    func lane(for stream: String) -> NIOThreadPool {
        let key = streams.contains(stream) ? stream : ""
        return lanes.withLock { lanes in
            if let lane = lanes[key] { return lane }
            let lane = NIOThreadPool(numberOfThreads: 1)
            lane.start()
            lanes[key] = lane
            return lane
        }
    }

    /// Counts one upload of `stream` in, or the refusal its share, or the server's bound, gives.
    func enter(stream: String) -> Result<Upload, Refusal> {
        inUse.withLock { used in
            let mine = used.byStream[stream] ?? (0, 0)
            if let refusal = share.refusal(uploadsInFlight: mine.uploads) ?? bounds.refusal(uploadsInFlight: used.uploads) { return .failure(refusal) }
            used.uploads += 1
            used.byStream[stream] = (mine.uploads + 1, mine.bytes)
            return .success(Upload(load: self, stream: stream))
        }
    }

    fileprivate func buffer(_ bytes: Int, stream: String) -> Refusal? {
        inUse.withLock { used in
            let mine = used.byStream[stream] ?? (0, 0)
            if let refusal = share.refusal(buffering: bytes, buffered: mine.bytes) ?? bounds.refusal(buffering: bytes, buffered: used.bytes) { return refusal }
            used.bytes += bytes
            used.byStream[stream] = (mine.uploads, mine.bytes + bytes)
            return nil
        }
    }

    fileprivate func leave(bytes: Int, stream: String) {
        inUse.withLock { used in
            used.uploads = max(0, used.uploads - 1)
            used.bytes = max(0, used.bytes - bytes)
            let mine = used.byStream[stream] ?? (0, 0)
            let left = (uploads: max(0, mine.uploads - 1), bytes: max(0, mine.bytes - bytes))
            used.byStream[stream] = left.uploads == 0 && left.bytes == 0 ? nil : left
        }
    }

    var uploadsInFlight: Int { inUse.withLock { $0.uploads } }
    var bytesBuffered: Int { inUse.withLock { $0.bytes } }

    /// One upload's place and the bytes it buffered, given back by `done()`.
    final class Upload: Sendable {
        private let load: IngestLoad
        private let stream: String
        private let buffered = Mutex(0)

        fileprivate init(load: IngestLoad, stream: String) {
            self.load = load
            self.stream = stream
        }

        /// Counts `bytes` more of this upload's body in, or the refusal the bounds give.
        func buffer(_ bytes: Int) -> Refusal? {
            if let refusal = load.buffer(bytes, stream: stream) { return refusal }
            buffered.withLock { $0 += bytes }
            return nil
        }

        func done() { load.leave(bytes: buffered.withLock { held in defer { held = 0 }; return held }, stream: stream) }
    }
}
