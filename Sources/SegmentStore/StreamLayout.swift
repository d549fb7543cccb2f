import HLSPlaylist
import SidelineCore

/// Where a stream lives on disk:
///
///     <data dir>/<stream>/master.m3u8
///     <data dir>/<stream>/<variant>/index.m3u8
///     <data dir>/<stream>/<variant>/iframes.m3u8
///     <data dir>/<stream>/<variant>/000042.ts
///     <data dir>/<stream>/ingest/<variant>/<name>.ts   (a pushed stream's received segments)
///     <data dir>/<stream>/ingest/session.json          (its encoder's session, for a restart)
///     <data dir>/<stream>/metadata.json                (its title, description and keywords)
///     <data dir>/<stream>/unplaced/<variant>/<slot>-<name>.ts  (pushed segments no slot took)
///
/// The names of the server's own files are `StoreNames`', which no stream, set or variant name
/// may equal (`StoreNames.isUsable`).
public struct StreamLayout: Sendable, Equatable {
    public let dataDirectory: String
    public let stream: String

    public init(dataDirectory: String, stream: String) {
        self.dataDirectory = dataDirectory
        self.stream = stream
    }

    public static let masterPlaylistName = StoreNames.masterPlaylist
    public static let mediaPlaylistName = "index.m3u8"
    public static let iFramePlaylistName = "iframes.m3u8"

    public var streamDirectory: String { "\(dataDirectory)/\(stream)" }
    public var masterPlaylistPath: String { "\(streamDirectory)/\(Self.masterPlaylistName)" }
    /// Which timeline slot each playlist entry is (`StreamTimeline`, JSON).
    public var timelinePath: String { "\(streamDirectory)/\(StoreNames.timeline)" }
    public func variantDirectory(_ variant: String) -> String { "\(streamDirectory)/\(variant)" }
    public func mediaPlaylistPath(_ variant: String) -> String { "\(variantDirectory(variant))/\(Self.mediaPlaylistName)" }
    public func iFramePlaylistPath(_ variant: String) -> String { "\(variantDirectory(variant))/\(Self.iFramePlaylistName)" }
    public func segmentPath(_ variant: String, _ name: String) -> String { "\(variantDirectory(variant))/\(name)" }
    /// A pushed stream's segments received and not yet listed, under the names they were pushed
    /// with (plain names: `IngestPath` refuses any other). Apart from the recording, which names
    /// its segments by media sequence number.
    public func ingestDirectory(_ variant: String) -> String { "\(ingestRoot)/\(variant)" }
    /// The folder of everything a pushed stream's ingest keeps.
    public var ingestRoot: String { "\(streamDirectory)/\(StoreNames.ingest)" }
    /// The ladder a pushed stream took from its encoder's master (`PushedLadder`, JSON).
    public var pushedLadderPath: String { "\(ingestRoot)/\(StoreNames.pushedLadder)" }
    /// What the ingest must remember across a restart (`IngestLedger.Persisted`, JSON).
    public var ingestSessionPath: String { "\(ingestRoot)/\(StoreNames.ingestSession)" }
    /// A pushed stream's title, description and keywords as its encoder last sent them (JSON).
    public var metadataPath: String { "\(streamDirectory)/\(StoreNames.metadata)" }
    /// Where a pushed segment that no slot could take is kept, restamped for `slot`.
    public func unplacedPath(_ variant: String, slot: Int, name: String) -> String {
        "\(streamDirectory)/\(StoreNames.unplaced)/\(variant)/\(Self.segmentName(sequence: slot).dropLast(3))-\(name)"
    }

    /// The file (and URL) name of the segment with media sequence number `sequence`.
    public static func segmentName(sequence: Int) -> String { MediaSegment.recordedName(sequence: sequence) }
}
