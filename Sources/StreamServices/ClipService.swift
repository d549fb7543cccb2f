import Foundation
import MediaPipeline
import NIOPosix
import OriginAPI
import OriginPolicy
import SidelineConfig

/// Makes clips for `GET /api/streams/{stream}/clip.mp4` (and the ZIPs of `/api/sets/{set}/clip.zip`) with `ClipRemuxer` on two threads of
/// its own: a remux blocks in libavformat, so it never runs on Swift concurrency's pool, and at
/// most two run at once, so a crowd asking for clips cannot starve the encoders of CPU.
public final class ClipService: ClipMaking {
    private let pool: NIOThreadPool
    public let bounds: ClipBounds

    /// `settings`: the config's `clips` section (the defaults when left out).
    public init(settings: ClipSettings = ClipSettings()) {
        bounds = ClipBounds(maxDuration: settings.maxDuration, maxInProgress: settings.maxInProgress,
                            scratchLimitBytes: settings.scratchLimitMegabytes.multipliedReportingOverflow(by: 1 << 20).overflow ? .max : settings.scratchLimitMegabytes << 20)
        pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
    }

    public func makeClip(segments: [String], start: Double, end: Double, into path: String) async throws -> ClipMade {
        let outcome = try await pool.runIfActive {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            return try ClipRemuxer.remux(.init(segments: segments, start: start, end: end), to: path)
        }
        return ClipMade(duration: outcome.duration, snappedBy: outcome.snappedBy, bytes: outcome.bytes)
    }

    /// A set clip's ZIP, on the clip threads; the angles' MP4s are removed once packed (or not).
    public func makeArchive(_ entries: [ArchiveEntry], into path: String) async throws -> Int {
        try await pool.runIfActive {
            defer { for entry in entries { unlink(entry.path) } }
            return try ClipArchive.write(entries, to: path)
        }
    }

    /// Clips that were being sent when the process stopped (their names are normally removed
    /// as soon as sending starts).
    public static func removeLeftovers(in dataDirectory: String) {
        try? FileManager.default.removeItem(atPath: dataDirectory + "/.clips")
    }
}
