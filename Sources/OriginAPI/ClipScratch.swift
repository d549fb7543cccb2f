import Foundation
import OriginPolicy
import Synchronization

/// The clips being made or sent and the scratch bytes they hold, against `ClipBounds`. Shared by
/// every router the clip routes are added to, so the bounds hold for the whole server.
final class ClipScratch: Sendable {
    let bounds: ClipBounds
    private let inUse = Mutex<(clips: Int, bytes: Int)>((0, 0))

    init(bounds: ClipBounds) { self.bounds = bounds }

    /// Takes room for one clip of about `bytes`, or the refusal a bound gives.
    func reserve(bytes: Int) -> Result<Reservation, Refusal> {
        inUse.withLock { used in
            if let refusal = bounds.refusal(adding: bytes, inProgress: used.clips, scratchInUse: used.bytes) { return .failure(refusal) }
            used.clips += 1
            used.bytes += bytes
            return .success(Reservation(scratch: self, bytes: bytes))
        }
    }

    fileprivate func release(bytes: Int) {
        inUse.withLock { used in
            used.clips = max(0, used.clips - 1)
            used.bytes = max(0, used.bytes - bytes)
        }
    }

    var clipsInProgress: Int { inUse.withLock { $0.clips } }

    /// One clip's room and its file. Released when the last reference goes: after the answer was
    /// sent, when the client went away during it, or when it was never started (the client left
    /// while the clip was made and the head could not be written). The file's name goes then at
    /// the latest, so no path leaves a file behind.
    final class Reservation: Sendable {
        private let scratch: ClipScratch
        private let bytes: Int
        private let paths = Mutex<[String]>([])

        fileprivate init(scratch: ClipScratch, bytes: Int) {
            self.scratch = scratch
            self.bytes = bytes
        }

        /// A scratch file this clip is made into (a set clip has one per angle and its ZIP),
        /// removed when the reservation ends.
        func holds(_ file: String) { paths.withLock { $0.append(file) } }

        deinit {
            for file in paths.withLock({ $0 }) { unlink(file) }
            scratch.release(bytes: bytes)
        }
    }
}
