import Foundation
import HLSPlaylist

/// The one reader of a recording on disk: its master, each variant's media and I-frame
/// playlists, and which variants it holds. A restart continuing the recording
/// (`StreamRecorder`), a mirror's own copy (`MirrorDisk`), a clip exported from disk
/// (`ClipExport`) and an angle set's timeline (`SetTimelineStore`) all read it here.
public struct RecordingReader: Sendable {
    public let layout: StreamLayout

    public init(layout: StreamLayout) { self.layout = layout }

    /// Why a playlist that is there cannot be read.
    public struct Unreadable: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path) cannot be read back: \(reason)" }

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// The recording's master; nil when there is none, or it does not parse.
    public func master() -> MultivariantPlaylist? {
        text(layout.masterPlaylistPath).flatMap { try? MultivariantPlaylist.parse($0) }
    }

    /// `variant`'s media playlist; nil when there is none; throws when it is there and does
    /// not parse (a recording that cannot be continued as it is).
    /// The stream's timeline map as its owner saved it (`StreamRecorder.writeTimeline`), or nil
    /// when none was saved (a recording on one run of slots).
    public func timeline() -> [UInt8]? {
        FileManager.default.contents(atPath: layout.timelinePath).map(Array.init)
    }

    public func mediaPlaylist(_ variant: String) throws(Unreadable) -> MediaPlaylist? {
        let path = layout.mediaPlaylistPath(variant)
        guard let text = text(path) else { return nil }
        do {
            return try MediaPlaylist.parse(text)
        } catch {
            throw Unreadable(path: path, reason: "\(error)")
        }
    }

    /// `variant`'s I-frame playlist; nil when there is none or it does not parse (it is made
    /// again from the media playlist).
    public func iFramePlaylist(_ variant: String) -> MediaPlaylist? {
        text(layout.iFramePlaylistPath(variant)).flatMap { try? MediaPlaylist.parse($0) }
    }

    /// Whether the stream has a folder at all.
    public var exists: Bool { FileManager.default.fileExists(atPath: layout.streamDirectory) }

    /// The variants that recorded a media playlist, by folder name.
    public func recordedVariants() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: layout.streamDirectory)) ?? [])
            .filter { FileManager.default.fileExists(atPath: layout.mediaPlaylistPath($0)) }.sorted()
    }

    private func text(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }
}
