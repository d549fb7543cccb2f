import Foundation
import HLSPlaylist
import SidelineCore

/// The record that a stream was removed: `<data dir>/<stream>/removed`, written atomically
/// before anything is deleted, so the stream answers 410 from then on, across restarts, even
/// if the process dies halfway through deleting its files.
public struct StreamTombstone: Sendable, Equatable {
    public var removedAt: Date
    public var reason: String

    public init(removedAt: Date, reason: String) {
        self.removedAt = removedAt
        self.reason = reason
    }

    public static let fileName = StoreNames.tombstone

    public static func path(in layout: StreamLayout) -> String { "\(layout.streamDirectory)/\(fileName)" }

    /// The tombstone of the stream, if it was removed.
    public static func read(_ layout: StreamLayout) -> StreamTombstone? {
        guard let text = try? String(contentsOfFile: path(in: layout), encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let date = lines.first.flatMap { ProgramDateTime.parse($0) } ?? Date(timeIntervalSince1970: 0)
        return StreamTombstone(removedAt: date, reason: lines.dropFirst().first.map(String.init) ?? "")
    }

    /// Marks the stream removed, then deletes its recording (segments and playlists). The
    /// tombstone stays, so the name answers 410 until an operator deletes the directory.
    public static func remove(_ layout: StreamLayout, reason: String, at date: Date = Date()) throws(StoreError) {
        try FileManager.default.createDirectory(atPath: layout.streamDirectory, withIntermediateDirectories: true, attributes: nil, orThrow: layout.streamDirectory)
        try AtomicFile.write(ProgramDateTime.format(date) + "\n" + reason.replacingOccurrences(of: "\n", with: " ") + "\n", to: path(in: layout))
        let names = (try? FileManager.default.contentsOfDirectory(atPath: layout.streamDirectory)) ?? []
        for name in names where name != fileName {
            let path = "\(layout.streamDirectory)/\(name)"
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw .writeFailed(path: path, reason: "cannot delete: \(error.localizedDescription)")
            }
        }
    }
}

extension FileManager {
    fileprivate func createDirectory(atPath path: String, withIntermediateDirectories: Bool, attributes: [FileAttributeKey: Any]?, orThrow name: String) throws(StoreError) {
        do {
            try createDirectory(atPath: path, withIntermediateDirectories: withIntermediateDirectories, attributes: attributes)
        } catch {
            throw .notWritable(directory: name, reason: error.localizedDescription)
        }
    }
}
