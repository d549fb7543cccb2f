import NIOPosix
import OriginPolicy
import Synchronization

/// Uploads in flight and the bytes of their bodies held in memory, against `IngestBounds`,
/// and the threads that carry uploads out. Shared by every router the ingest routes are added
/// to, so the bounds hold for the whole server.
final class IngestLoad: Sendable {
    let bounds: IngestBounds
    private let inUse = Mutex<(uploads: Int, bytes: Int)>((0, 0))

    /// Checks, disk writes and publishing of uploads block, and each stream's uploads wait for
    /// one another; they run here, never on NIO's shared blocking pool, whose threads read the
    /// segments players ask for (`FileSystem.shared`).
    static let workers: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        return pool
    }()

    init(bounds: IngestBounds) { self.bounds = bounds }

    /// Counts one upload in, or the refusal `maxUploadsInFlight` gives.
    func enter() -> Result<Upload, Refusal> {
        inUse.withLock { used in
            if let refusal = bounds.refusal(uploadsInFlight: used.uploads) { return .failure(refusal) }
            used.uploads += 1
            return .success(Upload(load: self))
        }
    }

    fileprivate func buffer(_ bytes: Int) -> Refusal? {
        inUse.withLock { used in
            if let refusal = bounds.refusal(buffering: bytes, buffered: used.bytes) { return refusal }
            used.bytes += bytes
            return nil
        }
    }

    fileprivate func leave(bytes: Int) {
        inUse.withLock { used in
            used.uploads = max(0, used.uploads - 1)
            used.bytes = max(0, used.bytes - bytes)
        }
    }

    var uploadsInFlight: Int { inUse.withLock { $0.uploads } }
    var bytesBuffered: Int { inUse.withLock { $0.bytes } }

    /// One upload's place and the bytes it buffered, given back by `done()`.
    final class Upload: Sendable {
        private let load: IngestLoad
        private let buffered = Mutex(0)

        fileprivate init(load: IngestLoad) { self.load = load }

        /// Counts `bytes` more of this upload's body in, or the refusal `maxBufferedBytes` gives.
        func buffer(_ bytes: Int) -> Refusal? {
            if let refusal = load.buffer(bytes) { return refusal }
            buffered.withLock { $0 += bytes }
            return nil
        }

        func done() { load.leave(bytes: buffered.withLock { held in defer { held = 0 }; return held }) }
    }
}
