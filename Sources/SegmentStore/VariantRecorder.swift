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
        /// One entry per segment: its first IDR, by byte range (its only keyframe on one box; a
        /// redundant pair has one at every part, and the first stands for the segment).
        var iFrames: LiveMediaPlaylist
        var nextNeedsDiscontinuity: Bool
    }

    /// What was recorded: the segment's name and size, and the playlist that now lists it.
    public struct Recorded: Sendable {
        public let name: String
        public let sequence: Int
        public let size: Int
        /// The playlists that now list it, as the origin publishes them.
        public let playlist: LiveMediaPlaylist
        public let iFrames: LiveMediaPlaylist
        public var playlistText: String { playlist.text }
        public let segment: MediaSegment
        /// False when the segment could not be written (disk full, I/O error): it is listed
        /// as EXT-X-GAP instead, so the playlist keeps pace and never names a missing file.
        public let segmentWritten: Bool
        /// The first write that failed (segment, playlist or I-frame playlist), if any. The
        /// playlist in memory is always up to date; the copy on disk catches up at the next
        /// write that succeeds.
        public let diskError: StoreError?
    }

    init(layout: StreamLayout, variant: String, recovered: MediaPlaylist?, recoveredIFrames: MediaPlaylist?, targetDuration: Int,
         alignedWith reference: [MediaSegment] = [], referenceSequence: Int = 0) throws(StoreError) {
        self.layout = layout
        self.variant = variant
        let directory = layout.variantDirectory(variant)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .notWritable(directory: directory, reason: "\(error.localizedDescription)")
        }
        Self.removeTemporaryFiles(in: directory)
        // A variant with nothing on disk beside siblings that have a recording (a rung added to
        // the ladder, a crash before its first write) numbers its entries as they do: on the
        // universal grid their numbers are slots, not positions from 0.
        var playlist = recovered ?? MediaPlaylist(targetDuration: targetDuration, mediaSequence: referenceSequence)
        playlist.endList = false
        var iFrames = recoveredIFrames ?? Self.emptyIFramePlaylist(targetDuration: targetDuration)
        if recoveredIFrames == nil && recovered == nil { iFrames.mediaSequence = referenceSequence }
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

    public var playlist: MediaPlaylist { state.withLock { $0.playlist.playlist } }
    public var playlistText: String { state.withLock { $0.playlist.text } }
    /// The media and I-frame playlists with their rendered text, as the origin serves them.
    public var livePlaylists: (playlist: LiveMediaPlaylist, iFrames: LiveMediaPlaylist) { state.withLock { ($0.playlist, $0.iFrames) } }

    /// EXT-X-VERSION 4: the lowest with EXT-X-BYTERANGE and EXT-X-I-FRAMES-ONLY (RFC 8216 §7).
    static func emptyIFramePlaylist(targetDuration: Int) -> MediaPlaylist {
        MediaPlaylist(version: 4, targetDuration: targetDuration, iFramesOnly: true)
    }

    /// `dateRanges` go just before the entry; `discontinuity` forces EXT-X-DISCONTINUITY (the
    /// first segment after an outage), as does continuing an earlier recording.
    public func record(_ segment: EncodedSegment, dateRanges: [DateRange] = [], discontinuity: Bool = false) -> Recorded {
        let needed = state.withLock { $0.nextNeedsDiscontinuity }
        return list(.segment(segment), duration: segment.duration, programDateTime: segment.programDateTime,
                    discontinuity: segment.discontinuity || discontinuity || needed, dateRanges: dateRanges)
    }

    /// An empty recording's first entry will have media sequence number `sequence` (a slot of
    /// the universal grid): EXT-X-MEDIA-SEQUENCE of it and of its I-frame playlist. False (and
    /// nothing changes) once anything is listed: a listed entry keeps its number.
    @discardableResult
    public func startNumbering(at sequence: Int) -> Bool {
        state.withLock { state in
            guard state.playlist.playlist.segments.isEmpty, sequence >= 0 else { return false }
            var playlist = state.playlist.playlist
            playlist.mediaSequence = sequence
            var iFrames = state.iFrames.playlist
            iFrames.mediaSequence = sequence
            state.playlist = LiveMediaPlaylist(playlist)
            state.iFrames = LiveMediaPlaylist(iFrames)
            return true
        }
    }

    /// What a run of GAP entries listed together left: their names and the playlists that now
    /// list them.
    public struct RecordedGaps: Sendable {
        public let names: [String]
        public let playlist: LiveMediaPlaylist
        public let iFrames: LiveMediaPlaylist
        public let diskError: StoreError?
    }

    /// Lists EXT-X-GAP entries exactly as given (no file each) and writes the playlist once for
    /// all of them.
    public func listGaps(_ entries: [(duration: Double, programDateTime: Date?, discontinuity: Bool)]) -> RecordedGaps {
        state.withLock { (state: inout State) -> RecordedGaps in
            var names: [String] = []
            names.reserveCapacity(entries.count)
            for entry in entries {
                let name = StreamLayout.segmentName(sequence: state.playlist.playlist.mediaSequence + state.playlist.playlist.segments.count)
                state.playlist.append(MediaSegment(uri: name, duration: entry.duration, programDateTime: entry.programDateTime,
                                                   discontinuity: entry.discontinuity, gap: true))
                state.nextNeedsDiscontinuity = false
                names.append(name)
            }
            var diskError: StoreError?
            if !entries.isEmpty {
                do throws(StoreError) {
                    try AtomicFile.write(state.playlist.text, to: layout.mediaPlaylistPath(variant))
                } catch {
                    diskError = error
                }
            }
            return RecordedGaps(names: names, playlist: state.playlist, iFrames: state.iFrames, diskError: diskError)
        }
    }

    /// What an entry's file is made of.
    public enum Body: Sendable {
        /// Bytes to write as the segment (and where its IDRs are, for the I-frame playlist).
        case bytes([UInt8], keyframeRanges: [Range<Int>])
        /// An existing segment file (a sibling variant's) to list under this variant's name:
        /// hard-linked, so no byte is copied; copied only across file systems.
        case file(path: String, keyframe: MediaSegment.ByteRange?)
        /// No file: an EXT-X-GAP entry.
        case gap

        /// A finished segment: the file that holds its bytes already, linked (a pushed segment
        /// kept restamped on arrival: written once), else its bytes.
        public static func segment(_ segment: EncodedSegment) -> Body {
            guard let file = segment.file else { return .bytes(segment.bytes, keyframeRanges: segment.keyframeRanges) }
            return .file(path: file, keyframe: segment.keyframeRanges.first.map { .init(length: $0.count, offset: $0.lowerBound) })
        }
    }

    /// Lists one entry exactly as given (the publishing core has decided its seams): the file
    /// is written first, then the playlist that names it. A file that cannot be written is
    /// listed as EXT-X-GAP instead.
    public func list(_ body: Body, duration: Double, programDateTime: Date?, discontinuity: Bool, dateRanges: [DateRange]) -> Recorded {
        state.withLock { (state: inout State) -> Recorded in
            let sequence = state.playlist.playlist.mediaSequence + state.playlist.playlist.segments.count
            let name = StreamLayout.segmentName(sequence: sequence)
            let path = layout.segmentPath(variant, name)
            var diskError: StoreError?
            var size = 0
            var keyframe: MediaSegment.ByteRange?
            do throws(StoreError) {
                switch body {
                case let .bytes(bytes, ranges):
                    try AtomicFile.write(bytes, to: path)
                    size = bytes.count
                    keyframe = ranges.first.map { .init(length: $0.count, offset: $0.lowerBound) }
                case let .file(source, range):
                    size = try AtomicFile.link(source, to: path)
                    keyframe = range
                case .gap:
                    break
                }
            } catch {
                diskError = error
            }
            let written: Bool
            if case .gap = body { written = false } else { written = diskError == nil }
            let entry = MediaSegment(uri: name, duration: duration, programDateTime: programDateTime, discontinuity: discontinuity, gap: !written, dateRanges: dateRanges)
            state.playlist.append(entry)
            state.nextNeedsDiscontinuity = false
            let text = state.playlist.text
            do throws(StoreError) {
                try AtomicFile.write(text, to: layout.mediaPlaylistPath(variant))
            } catch {
                diskError = diskError ?? error
            }
            if written, let keyframe {
                var iFrame = entry
                iFrame.programDateTime = nil
                iFrame.dateRanges = []
                iFrame.byteRange = keyframe
                state.iFrames.append(iFrame)
                do throws(StoreError) {
                    try AtomicFile.write(state.iFrames.text, to: layout.iFramePlaylistPath(variant))
                } catch {
                    diskError = diskError ?? error
                }
            }
            return Recorded(name: name, sequence: sequence, size: written ? size : 0, playlist: state.playlist,
                            iFrames: state.iFrames, segment: entry, segmentWritten: written, diskError: diskError)
        }
    }

    /// What a replacement left on disk: the real segment's file and the playlist that now
    /// names it (`SegmentReplacement`, appended after the last entry).
    public struct Replaced: Sendable {
        public let replacement: SegmentReplacement
        public let size: Int
        public let playlist: LiveMediaPlaylist
        /// The first write that failed after the segment's (the playlist's); the segment's own
        /// failure is thrown instead, with nothing changed.
        public let diskError: StoreError?
    }

    /// Why a late segment cannot replace an entry.
    public enum ReplacementRefusal: Error, Sendable, Equatable, CustomStringConvertible {
        case noSuchEntry(Int)
        case alreadyReplaced(String)
        case ended
        case undated(String)
        case notWritten(StoreError)

        public var description: String {
            switch self {
            case let .noSuchEntry(entry): "entry \(entry) is not listed"
            case let .alreadyReplaced(uri): "\(uri) was replaced already"
            case .ended: "the playlist has ended"
            case let .undated(uri): "\(uri) has no program date-time to place its replacement by"
            case let .notWritten(error): "the segment could not be written: \(error)"
            }
        }
    }

    /// The recording takes `bytes`, a real segment that came late, in place of entry `entry`
    /// (a stand-in, a sibling's copy or a GAP): the segment is written atomically beside it
    /// (`SegmentReplacement.fileName`), then a replacement date range is appended to the
    /// playlist, which is written again. The live playlist keeps the entry players saw; the
    /// recording's view (`applyingReplacements`) names the real segment.
    public func replace(entry: Int, with bytes: [UInt8], keyframeRanges: [Range<Int>], duration: Double) -> Result<Replaced, ReplacementRefusal> {
        state.withLock { (state: inout State) -> Result<Replaced, ReplacementRefusal> in
            let playlist = state.playlist.playlist
            let index = entry - playlist.mediaSequence
            guard playlist.segments.indices.contains(index) else { return .failure(.noSuchEntry(entry)) }
            guard !playlist.endList else { return .failure(.ended) }
            let replaced = playlist.segments[index]
            guard playlist.replacements[replaced.uri] == nil else { return .failure(.alreadyReplaced(replaced.uri)) }
            // START-DATE: the entry's own date, or carried on from the last dated one before it.
            guard let date = PlaylistTimes(playlist).programDateTime(ofEntry: index) else { return .failure(.undated(replaced.uri)) }
            let name = SegmentReplacement.fileName(replacing: replaced.uri)
            do throws(StoreError) {
                try AtomicFile.write(bytes, to: layout.segmentPath(variant, name))
            } catch {
                return .failure(.notWritten(error))
            }
            let replacement = SegmentReplacement(replaces: replaced.uri, uri: name, duration: duration, startDate: date,
                                                 keyframe: keyframeRanges.first.map { .init(length: $0.count, offset: $0.lowerBound) })
            state.playlist.appendTrailing(replacement.dateRange)
            var diskError: StoreError?
            do throws(StoreError) {
                try AtomicFile.write(state.playlist.text, to: layout.mediaPlaylistPath(variant))
            } catch {
                diskError = error
            }
            return .success(Replaced(replacement: replacement, size: bytes.count, playlist: state.playlist, diskError: diskError))
        }
    }

    /// Where segment `name`'s IDR is (its I-frame entry), if it has one.
    public func keyframeRange(ofSegment name: String) -> MediaSegment.ByteRange? {
        state.withLock { $0.iFrames.playlist.segments.last { $0.uri == name }?.byteRange }
    }

    /// Closes the playlist with EXT-X-ENDLIST. Returns the final playlists.
    @discardableResult
    public func end() throws(StoreError) -> (playlist: LiveMediaPlaylist, iFrames: LiveMediaPlaylist) {
        try state.withLock { (state: inout State) throws(StoreError) -> (playlist: LiveMediaPlaylist, iFrames: LiveMediaPlaylist) in
            var next = state.playlist
            next.end()
            let text = next.text
            try AtomicFile.write(text, to: layout.mediaPlaylistPath(variant))
            state.playlist = next
            var iFrames = state.iFrames
            iFrames.end()
            try AtomicFile.write(iFrames.text, to: layout.iFramePlaylistPath(variant))
            state.iFrames = iFrames
            return (next, iFrames)
        }
    }

    static func removeTemporaryFiles(in directory: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(AtomicFile.temporaryPrefix) {
            unlink("\(directory)/\(name)")
        }
    }
}
