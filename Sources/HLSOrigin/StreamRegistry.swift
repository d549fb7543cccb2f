import Foundation
import NIOCore
import Synchronization

/// The one source of truth for what the origin serves: for each stream, its phase, the
/// rendered playlists (kept as ready-to-send bytes, replaced whole on each new version) and
/// the segments they list. The pipeline side publishes; request handlers take cheap snapshots.
public final class StreamRegistry: Sendable {
    public enum Phase: String, Sendable, Equatable {
        /// Encoding has begun but no segment exists yet.
        case starting
        case live
        /// EXT-X-ENDLIST written: the recording is complete.
        case ended
        /// The input failed; what was recorded is still served.
        case failed
    }

    public struct SegmentFile: Sendable, Equatable {
        public let path: String
        public let size: Int
        /// EXTINF, in seconds.
        public let duration: Double
        public init(path: String, size: Int, duration: Double = 0) {
            self.path = path
            self.size = size
            self.duration = duration
        }
    }

    public struct Variant: Sendable {
        public var playlist: ByteBuffer?
        public var iFramePlaylist: ByteBuffer?
        public var segments: [String: SegmentFile] = [:]
        public var recorded = Recorded()
    }

    /// What a variant has recorded, for `/api/streams` and the logs.
    public struct Recorded: Sendable, Equatable {
        public var segments = 0
        public var duration = 0.0
        public var bytes = 0
        /// The highest bit rate of any one segment (bytes x 8 / duration).
        public var peakBitRate = 0.0

        mutating func add(bytes size: Int, duration: Double) {
            segments += 1
            self.duration += duration
            bytes += size
            if duration > 0 { peakBitRate = max(peakBitRate, Double(size * 8) / duration) }
        }

        public var averageBitRate: Double { duration > 0 ? Double(bytes * 8) / duration : 0 }
    }

    public struct Stream: Sendable {
        public var title: String
        public var phase: Phase
        public var targetDuration: Int
        public var master: ByteBuffer?
        public var variants: [String: Variant]
        /// The variant names in ladder order, best first.
        public var variantOrder: [String]
    }

    private let streams = Mutex<[String: Stream]>([:])

    public init() {}

    /// Announces a stream and its variants. Playlists answer 503 until they have content.
    public func register(stream: String, title: String = "", variants: [String], targetDuration: Int) {
        streams.withLock {
            $0[stream] = Stream(title: title, phase: .starting, targetDuration: targetDuration, master: nil,
                                 variants: Dictionary(uniqueKeysWithValues: variants.map { ($0, Variant()) }), variantOrder: variants)
        }
    }

    /// Loads what an earlier run recorded, so it is served before anything new exists.
    public func restore(stream: String, variant: String, playlistText: String, iFramePlaylistText: String?, segments: [String: SegmentFile]) {
        var recorded = Recorded()
        for file in segments.values { recorded.add(bytes: file.size, duration: file.duration) }
        streams.withLock {
            $0[stream]?.variants[variant] = Variant(playlist: ByteBuffer(string: playlistText), iFramePlaylist: iFramePlaylistText.map { ByteBuffer(string: $0) },
                                                    segments: segments, recorded: recorded)
        }
    }

    /// Call after the segment file and the playlist listing it are on disk.
    public func publish(stream: String, variant: String, segmentName: String, file: SegmentFile, playlistText: String, iFramePlaylistText: String? = nil) {
        let bytes = ByteBuffer(string: playlistText)
        let iFrameBytes = iFramePlaylistText.map { ByteBuffer(string: $0) }
        streams.withLock {
            $0[stream]?.variants[variant]?.segments[segmentName] = file
            $0[stream]?.variants[variant]?.recorded.add(bytes: file.size, duration: file.duration)
            $0[stream]?.variants[variant]?.playlist = bytes
            if let iFrameBytes { $0[stream]?.variants[variant]?.iFramePlaylist = iFrameBytes }
            if $0[stream]?.phase == .starting { $0[stream]?.phase = .live }
        }
    }

    public func setMaster(stream: String, text: String) {
        let bytes = ByteBuffer(string: text)
        streams.withLock { $0[stream]?.master = bytes }
    }

    public func updatePlaylists(stream: String, variant: String, text: String, iFramesText: String?) {
        let bytes = ByteBuffer(string: text)
        let iFrameBytes = iFramesText.map { ByteBuffer(string: $0) }
        streams.withLock {
            $0[stream]?.variants[variant]?.playlist = bytes
            if let iFrameBytes { $0[stream]?.variants[variant]?.iFramePlaylist = iFrameBytes }
        }
    }

    public func setPhase(stream: String, _ phase: Phase) {
        streams.withLock { $0[stream]?.phase = phase }
    }

    public func stream(named name: String) -> Stream? {
        streams.withLock { $0[name] }
    }

    public var streamNames: [String] { streams.withLock { Array($0.keys).sorted() } }
}
