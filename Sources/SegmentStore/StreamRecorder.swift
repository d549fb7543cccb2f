import Foundation
import HLSPlaylist
import Logging
import SidelineCore

/// Records one stream under the data directory: checks that it can write there before
/// anything is served, continues an earlier recording of the same stream, and writes the
/// master playlist.
public final class StreamRecorder: Sendable {
    public let layout: StreamLayout
    public let variants: [String: VariantRecorder]
    /// Where an earlier recording was moved because it could not be continued, if it was.
    public let archivedPreviousRecording: String?

    /// `continuing`: why a recorded playlist cannot be continued, besides its target duration
    /// (nil: it can); such a recording is moved aside like one of another target duration.
    public init(layout: StreamLayout, variantNames: [String], targetDuration: Int, continuing: (MediaPlaylist) -> String? = { _ in nil },
                logger: Logger) throws(StoreError) {
        self.layout = layout
        try Self.checkWritable(layout.dataDirectory)

        var recovered: [String: MediaPlaylist] = [:]
        var recoveredIFrames: [String: MediaPlaylist] = [:]
        var archived: String?
        var incompatible: String?
        let reader = RecordingReader(layout: layout)
        for name in variantNames {
            do {
                guard let playlist = try reader.mediaPlaylist(name) else { continue }
                if playlist.targetDuration != targetDuration {
                    incompatible = "\(layout.mediaPlaylistPath(name)) has EXT-X-TARGETDURATION \(playlist.targetDuration), this configuration needs \(targetDuration)"
                    break
                }
                if let reason = continuing(playlist) {
                    incompatible = "\(layout.mediaPlaylistPath(name)): \(reason)"
                    break
                }
                recovered[name] = playlist
                if let iFrames = reader.iFramePlaylist(name), iFrames.iFramesOnly, iFrames.targetDuration == targetDuration {
                    recoveredIFrames[name] = iFrames
                }
            } catch {
                incompatible = "\(error)"
                break
            }
        }
        if let incompatible {
            // RFC 8216 §6.2.1 forbids changing the target duration of a playlist (and a recording
            // off the universal grid cannot be renumbered), so this recording cannot be
            // continued. Keep it, out of the way, rather than lose it.
            let destination = "\(layout.streamDirectory)\(StoreNames.previousRecording)\(Self.timestamp())"
            if rename(layout.streamDirectory, destination) != 0 {
                throw .writeFailed(path: layout.streamDirectory, reason: "cannot move the earlier recording aside (\(incompatible)): \(StoreError.errnoText())")
            }
            logger.warning("earlier recording cannot be continued; moved aside", metadata: ["reason": "\(incompatible)", "moved-to": "\(destination)"])
            archived = destination
            recovered = [:]
            recoveredIFrames = [:]
        }
        archivedPreviousRecording = archived
        var recorders: [String: VariantRecorder] = [:]
        // A crash between two variants' writes leaves one a segment behind: align them.
        let longestPlaylist = recovered.values.max { $0.segments.count < $1.segments.count }
        let longest = longestPlaylist?.segments ?? []
        for name in variantNames {
            recorders[name] = try VariantRecorder(layout: layout, variant: name, recovered: recovered[name], recoveredIFrames: recoveredIFrames[name],
                                                  targetDuration: targetDuration, alignedWith: longest, referenceSequence: longestPlaylist?.mediaSequence ?? 0)
            if let playlist = recovered[name] {
                logger.info("continuing earlier recording", metadata: ["variant": "\(name)", "segments": "\(playlist.segments.count)"])
            }
        }
        variants = recorders
    }

    public func writeMasterPlaylist(_ text: String) throws(StoreError) {
        try AtomicFile.write(text, to: layout.masterPlaylistPath)
    }

    /// Saves the stream's timeline map (which slot each entry is, encoded by its owner), whole
    /// or not at all, beside the playlists; read back by `RecordingReader.timeline()`.
    public func writeTimeline(_ bytes: [UInt8]) throws(StoreError) {
        try AtomicFile.write(bytes, to: layout.timelinePath)
    }

    /// Creates the data directory if needed and proves a file can be written in it.
    static func checkWritable(_ directory: String) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            let reason = underlying.map { String(cString: strerror(Int32($0.code))) } ?? error.localizedDescription
            throw .notWritable(directory: directory, reason: reason)
        }
        let probe = "\(directory)/.write-probe"
        do {
            try AtomicFile.write("probe\n", to: probe)
            unlink(probe)
        } catch {
            if case let .writeFailed(_, reason) = error { throw .notWritable(directory: directory, reason: reason) }
            throw error
        }
    }

    private static func timestamp() -> String {
        ProgramDateTime.format(Date()).replacingOccurrences(of: ":", with: "").replacingOccurrences(of: ".", with: "")
    }
}
