import Foundation
import HLSPlaylist
import Synchronization

/// Records one variant: each segment is written atomically, and only then the media playlist
/// that lists it, so the playlist on disk never names a missing or partial segment.
///
/// A recording found on disk is continued, not replaced: its segments stay listed and the
/// first new segment carries EXT-X-DISCONTINUITY (RFC 8216 §4.3.2.3), because its timestamps
/// start again.
public final class VariantRecorder: Sendable {
    public let layout: StreamLayout
    public let variant: String
    private let state: Mutex<State>

    private struct State {
        var playlist: LiveMediaPlaylist
        /// One entry per segment: its IDR, by byte range (the segment's only keyframe).
        var iFrames: LiveMediaPlaylist
        var nextNeedsDiscontinuity: Bool
    }

    /// What was recorded: the segment's name and size, and the playlist that now lists it.
    public struct Recorded: Sendable {
        public let name: String
        public let sequence: Int
        public let size: Int
        public let playlistText: String
        public let iFramePlaylistText: String
        public let segment: MediaSegment
    }

    init(layout: StreamLayout, variant: String, recovered: MediaPlaylist?, recoveredIFrames: MediaPlaylist?, targetDuration: Int) throws(StoreError) {
        self.layout = layout
        self.variant = variant
        let directory = layout.variantDirectory(variant)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .notWritable(directory: directory, reason: "\(error.localizedDescription)")
        }
        Self.removeTemporaryFiles(in: directory)
        var playlist = recovered ?? MediaPlaylist(targetDuration: targetDuration)
        playlist.endList = false
        var iFrames = recoveredIFrames ?? Self.emptyIFramePlaylist(targetDuration: targetDuration)
        iFrames.endList = false
        state = Mutex(State(playlist: LiveMediaPlaylist(playlist), iFrames: LiveMediaPlaylist(iFrames), nextNeedsDiscontinuity: !playlist.segments.isEmpty))
    }

    public var playlist: MediaPlaylist { state.withLock { $0.playlist.playlist } }
    public var playlistText: String { state.withLock { $0.playlist.text } }
    public var iFramePlaylistText: String { state.withLock { $0.iFrames.text } }

    /// EXT-X-VERSION 4: the lowest with EXT-X-BYTERANGE and EXT-X-I-FRAMES-ONLY (RFC 8216 §7).
    static func emptyIFramePlaylist(targetDuration: Int) -> MediaPlaylist {
        MediaPlaylist(version: 4, targetDuration: targetDuration, iFramesOnly: true)
    }

    public func record(_ segment: EncodedSegment) throws(StoreError) -> Recorded {
        try state.withLock { (state: inout State) throws(StoreError) -> Recorded in
            let sequence = state.playlist.playlist.mediaSequence + state.playlist.playlist.segments.count
            let name = StreamLayout.segmentName(sequence: sequence)
            try AtomicFile.write(segment.bytes, to: layout.segmentPath(variant, name))
            let entry = MediaSegment(
                uri: name, duration: segment.duration, programDateTime: segment.programDateTime,
                discontinuity: segment.discontinuity || state.nextNeedsDiscontinuity
            )
            var next = state.playlist
            next.append(entry)
            let text = next.text
            try AtomicFile.write(text, to: layout.mediaPlaylistPath(variant))
            state.playlist = next
            state.nextNeedsDiscontinuity = false
            if let idr = segment.keyframeRanges.first {
                var iFrame = entry
                iFrame.programDateTime = nil
                iFrame.byteRange = .init(length: idr.count, offset: idr.lowerBound)
                var nextIFrames = state.iFrames
                nextIFrames.append(iFrame)
                try AtomicFile.write(nextIFrames.text, to: layout.iFramePlaylistPath(variant))
                state.iFrames = nextIFrames
            }
            return Recorded(name: name, sequence: sequence, size: segment.bytes.count, playlistText: text, iFramePlaylistText: state.iFrames.text, segment: entry)
        }
    }

    /// Closes the playlist with EXT-X-ENDLIST. Returns the final text.
    @discardableResult
    public func end() throws(StoreError) -> String {
        try state.withLock { (state: inout State) throws(StoreError) -> String in
            var next = state.playlist
            next.end()
            let text = next.text
            try AtomicFile.write(text, to: layout.mediaPlaylistPath(variant))
            state.playlist = next
            var iFrames = state.iFrames
            iFrames.end()
            try AtomicFile.write(iFrames.text, to: layout.iFramePlaylistPath(variant))
            state.iFrames = iFrames
            return text
        }
    }

    static func removeTemporaryFiles(in directory: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(AtomicFile.temporaryPrefix) {
            unlink("\(directory)/\(name)")
        }
    }
}
