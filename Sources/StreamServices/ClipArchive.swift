import Foundation
import OriginAPI
import ZIPFoundation

/// A set clip's download: one ZIP of one MP4 per angle, written by ZIPFoundation. Entries are
/// stored, not deflated: an MP4's H.264 and AAC do not compress, and deflating them would only
/// cost the CPU the encoders need. Blocking file work: call it on a thread of your own.
public enum ClipArchive {
    /// Writes `entries` into a new ZIP at `path` (ZIP64 past 4 GiB) and returns its size. The
    /// entries' files stay where they are; on failure no ZIP is left behind.
    public static func write(_ entries: [ArchiveEntry], to path: String) throws -> Int {
        do {
            let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
            for entry in entries {
                try archive.addEntry(with: entry.name, fileURL: URL(fileURLWithPath: entry.path), compressionMethod: .none)
            }
        } catch {
            unlink(path)
            throw error
        }
        return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
