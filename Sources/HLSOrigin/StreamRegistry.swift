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
        public init(path: String, size: Int) {
            self.path = path
            self.size = size
        }
    }

    public struct Variant: Sendable {
        public var playlist: ByteBuffer?
        public var iFramePlaylist: ByteBuffer?
        public var segments: [String: SegmentFile] = [:]
    }

    public struct Stream: Sendable {
        public var phase: Phase
        public var targetDuration: Int
        public var master: ByteBuffer?
        public var variants: [String: Variant]
    }

    private let streams = Mutex<[String: Stream]>([:])

    public init() {}

    /// Announces a stream and its variants. Playlists answer 503 until they have content.
    public func register(stream: String, variants: [String], targetDuration: Int) {
        streams.withLock {
            $0[stream] = Stream(phase: .starting, targetDuration: targetDuration, master: nil, variants: Dictionary(uniqueKeysWithValues: variants.map { ($0, Variant()) }))
        }
    }

    /// Loads what an earlier run recorded, so it is served before anything new exists.
    public func restore(stream: String, variant: String, playlistText: String, iFramePlaylistText: String?, segments: [String: SegmentFile]) {
        streams.withLock {
            $0[stream]?.variants[variant] = Variant(playlist: ByteBuffer(string: playlistText), iFramePlaylist: iFramePlaylistText.map { ByteBuffer(string: $0) }, segments: segments)
        }
    }

    /// Call after the segment file and the playlist listing it are on disk.
    public func publish(stream: String, variant: String, segmentName: String, file: SegmentFile, playlistText: String, iFramePlaylistText: String? = nil) {
        let bytes = ByteBuffer(string: playlistText)
        let iFrameBytes = iFramePlaylistText.map { ByteBuffer(string: $0) }
        streams.withLock {
            $0[stream]?.variants[variant]?.segments[segmentName] = file
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
