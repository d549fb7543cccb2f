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

    /// `alignedWith`: the entries of the sibling that recorded the most before a crash. A
    /// variant that is behind gets EXT-X-GAP entries for the segments it never wrote, so
    /// segment N is the same media time in every variant and players can still switch.
    init(layout: StreamLayout, variant: String, recovered: MediaPlaylist?, recoveredIFrames: MediaPlaylist?, targetDuration: Int,
         alignedWith reference: [MediaSegment] = []) throws(StoreError) {
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
        let missing = playlist.segments.count < reference.count ? Array(reference[playlist.segments.count...]) : []
        for entry in missing {
            playlist.segments.append(Self.gapEntry(sequence: playlist.mediaSequence + playlist.segments.count, like: entry))
        }
        if !missing.isEmpty { try AtomicFile.write(playlist.render(), to: layout.mediaPlaylistPath(variant)) }
        state = Mutex(State(playlist: LiveMediaPlaylist(playlist), iFrames: LiveMediaPlaylist(iFrames), nextNeedsDiscontinuity: !playlist.segments.isEmpty))
    }

    /// The entry for a segment this variant does not have, timed like its sibling's `entry`.
    static func gapEntry(sequence: Int, like entry: MediaSegment) -> MediaSegment {
        MediaSegment(uri: StreamLayout.segmentName(sequence: sequence), duration: entry.duration, programDateTime: entry.programDateTime, gap: true)
    }

    /// Number of entries listed (segments and gaps).
    public var count: Int { state.withLock { $0.playlist.playlist.segments.count } }

    /// What was listed as gaps, and the playlist that lists them.
    public struct RecordedGaps: Sendable {
        public let names: [String]
        public let playlistText: String
    }

    /// Appends EXT-X-GAP entries, timed like `entry` (a sibling's segment), until the
    /// playlist has `count` entries; nil when it already has. For a variant whose encoder
    /// failed: its playlist keeps pace with the others, so players switch away instead of
    /// waiting for it.
    public func recordGaps(upTo count: Int, like entry: MediaSegment) throws(StoreError) -> RecordedGaps? {
        try state.withLock { (state: inout State) throws(StoreError) -> RecordedGaps? in
            var next = state.playlist
            var names: [String] = []
            while next.playlist.segments.count < count {
                let gap = Self.gapEntry(sequence: next.playlist.mediaSequence + next.playlist.segments.count, like: entry)
                next.append(gap)
                names.append(gap.uri)
            }
            guard !names.isEmpty else { return nil }
            let text = next.text
            try AtomicFile.write(text, to: layout.mediaPlaylistPath(variant))
            state.playlist = next
            // The variant's next real segment follows a span it did not encode.
            state.nextNeedsDiscontinuity = true
            return RecordedGaps(names: names, playlistText: text)
        }
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
