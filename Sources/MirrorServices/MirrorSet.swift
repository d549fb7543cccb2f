import Foundation
import NIOPosix
import OriginRegistry
import OriginState
import SegmentStore
import SidelineCore
import StreamMirroring

/// An angle set a mirror follows whole (`sideline mirror http://.../live/<set>/master.m3u8`):
/// every angle is mirrored as a stream of its own (its URL `/live/<angle>/master.m3u8` on the
/// upstream, its recording here), and the set is served beside them, as the upstream serves it.
/// The mirror copies every entry's program date-time and sequence number, so its angles stay on
/// the set's one timeline, live and offline alike.
///
/// The set's angles are read from its master (one `EXT-X-MEDIA:TYPE=VIDEO` per angle, URI
/// `../<angle>/...`, default angle first), which is kept (`<data dir>/<set>/set-master.m3u8`) so
/// a restart with the upstream away still serves the set.
public struct MirrorSet: Sendable, Equatable {
    public let name: String
    /// Default angle first.
    public let angles: [String]

    public init(name: String, angles: [String]) {
        self.name = name
        self.angles = angles
    }

    /// The upstream master names a set: asked once at start; when the upstream does not answer,
    /// what an earlier start kept. Nil: a stream (or a set never seen), mirrored as before.
    public static func discover(master: URL, name: String, fetch: any UpstreamFetching, dataDirectory: String,
                                isValidName: @escaping (String) -> Bool) async -> MirrorSet? {
        let kept = StreamLayout(dataDirectory: dataDirectory, stream: name).streamDirectory + "/" + StoreNames.mirroredSetMaster
        if let answer = try? await fetch.get(master, gzip: true, timeout: 10), answer.status == 200 {
            let text = String(decoding: answer.body, as: UTF8.self)
            guard let angles = SetMasterAngles.angles(inMaster: text, isValidName: isValidName), !angles.contains(name) else { return nil }
            // On NIO's blocking-I/O threads, as the mirror's other file work.
            try? await NIOThreadPool.singleton.runIfActive { try AtomicFile.write(Array(text.utf8), to: kept) }
            return MirrorSet(name: name, angles: angles)
        }
        let text = try? await NIOThreadPool.singleton.runIfActive { try String(contentsOfFile: kept, encoding: .utf8) }
        guard let text, let angles = SetMasterAngles.angles(inMaster: text, isValidName: isValidName) else { return nil }
        return MirrorSet(name: name, angles: angles)
    }

    /// An angle's master on the upstream: the set's URL with the set's name replaced (its
    /// `/access/<credential>/` prefix and query kept: a set's credential opens every angle).
    public func master(of angle: String, from setMaster: URL) -> URL {
        guard var components = URLComponents(url: setMaster, resolvingAgainstBaseURL: false) else { return setMaster }
        var parts = components.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count >= 2 { parts[parts.count - 2] = angle }
        components.path = parts.joined(separator: "/")
        return components.url ?? setMaster
    }

    /// The set as the mirror's registry serves it.
    public func angleSet(segmentDuration: Double) -> StreamRegistry.AngleSet {
        StreamRegistry.AngleSet(name: name, streams: angles, segmentDuration: segmentDuration)
    }
}
