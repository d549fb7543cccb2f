import Foundation
import HLSPlaylist
import NIOPosix
import OriginPolicy
import OriginRegistry
import OriginState
import SegmentStore
import SidelineCore
import StreamMirroring

/// Where a mirror's decisions go (`MirrorDestination`): the recording on disk, in the same
/// layout as the upstream's, written atomically on NIO's blocking-I/O pool, and the origin's
/// registry.
public struct MirrorDisk: MirrorDestination {
    public let layout: StreamLayout
    let registry: StreamRegistry

    public init(layout: StreamLayout, registry: StreamRegistry) {
        self.layout = layout
        self.registry = registry
    }

    private var stream: String { layout.stream }

    /// Makes the stream's directory, or says what to change.
    public static func prepare(_ layout: StreamLayout) throws(SidelineStartupError) {
        do {
            try FileManager.default.createDirectory(atPath: layout.streamDirectory, withIntermediateDirectories: true)
        } catch {
            throw SidelineStartupError(message: "cannot create \(layout.streamDirectory): \(error.localizedDescription); give a writable --data-dir")
        }
    }

    public func storedMaster() -> MultivariantPlaylist? {
        RecordingReader(layout: layout).master()
    }

    public func stored(variant: String) throws -> StoredVariant {
        let files = try layout.wholeSegmentFiles(variant)
        let reader = RecordingReader(layout: layout)
        return StoredVariant(listed: try reader.mediaPlaylist(variant), iFrames: reader.iFramePlaylist(variant), files: files)
    }

    public func storeSegment(_ bytes: [UInt8], named name: String, variant: String) async throws {
        let path = layout.segmentPath(variant, name)
        try await NIOThreadPool.singleton.runIfActive { try AtomicFile.write(bytes, to: path) }
    }

    public func storePlaylists(_ media: MediaPlaylist, iFrames: MediaPlaylist?, variant: String) async throws {
        let (mediaPath, iFramePath) = (layout.mediaPlaylistPath(variant), layout.iFramePlaylistPath(variant))
        try await NIOThreadPool.singleton.runIfActive {
            try AtomicFile.write(media.render(), to: mediaPath)
            if let iFrames { try AtomicFile.write(iFrames.render(), to: iFramePath) }
        }
    }

    public func storeMaster(_ master: MultivariantPlaylist) throws {
        let text = master.render()
        try FileManager.default.createDirectory(atPath: layout.streamDirectory, withIntermediateDirectories: true)
        try AtomicFile.write(text, to: layout.masterPlaylistPath)
        registry.apply(.master(stream: stream, master))
    }

    public func register(title: String, variants: [String], targetDuration: Int) {
        registry.apply(.register(stream: stream, title: title, variants: variants, targetDuration: targetDuration))
    }

    public func show(_ view: MirrorView, variant: String) {
        let files = view.newSegments.reduce(into: [String: StreamRegistry.SegmentFile]()) { files, held in
            files[held.key] = .init(path: layout.segmentPath(variant, held.key), size: held.value.size, duration: held.value.duration)
        }
        let playlist = LiveMediaPlaylist(view.playlist)
        let iFrames = view.iFrames.map { LiveMediaPlaylist($0) }
        let source: OriginChange.Source = switch view.kind {
        case .restored: .restored(segments: files, gaps: view.gaps)
        case .grown: .mirrored(segments: files, gaps: view.gaps)
        case .reshaped: .playlists
        }
        registry.apply(.publish(.init(source, stream: stream, variant: variant, playlist: playlist, iFrames: iFrames)))
    }

    public func setMode(_ mode: MirrorFreshness.Mode) {
        let phase: StreamRegistry.Phase = switch mode {
        case .following: .live
        case .offline: .upstreamLost
        case .ended: .ended
        }
        if registry.stream(named: stream)?.phase != phase { registry.apply(.phase(stream: stream, phase)) }
    }

    public var servedMaster: String? { registry.masterText(stream: stream) }
}
