import Foundation
import HLSPlaylist
import IngestPolicy
import IngestServices
import Logging
import MPEGTS
import OriginPolicy
import OriginRegistry
import OriginState
import SegmentStore
import SidelineConfig
import SidelineCore
import StreamServices
import TestSupport
import Testing

/// A pushed segment is written once (issue 33): one that comes while its session is open is
/// kept restamped on arrival, and when a playlist lists it in that session the recording links
/// that very file (the same inode), with timestamps that continue the stream's; one kept
/// before its session opened is restamped when it is listed. A restart between a segment and
/// its playlist reads the kept file's timestamps as pushed. Real ffmpeg segments, a real
/// `PushedStream` over a temporary data directory.
@Suite struct PushedSegmentWrittenOnceTests {
    /// `PushedLadderHTTPTests`' pushed stream, with a configured ladder of the one rung pushed.
    func configuration(_ data: String) -> SidelineConfiguration {
        var configuration = PushedLadderHTTPTests().configuration(data)
        var rung = configuration.streams[0].video.ladder[0]
        (rung.name, rung.width, rung.height) = ("360p", 640, 360)
        configuration.streams[0].video.ladder = [rung]
        configuration.streams[0].video.ladderConfigured = true
        return configuration
    }

    func stream(_ configuration: SidelineConfiguration) throws -> (PushedStreams, PushedStream, StreamRegistry) {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        // The publisher's clock stands still: no slot falls due between two uploads however slow
        // the machine (a loaded CI run took 18 s over this test, and the ticker filled the slot
        // the restarted stream's segment was for: "came after its slot was filled").
        let registry = StreamRegistry(clock: { 1_000 })
        let plan = ServePlan(configuration: configuration, stream: configuration.streams[0], realtime: true)
        let stream = try PushedStream(plan: plan, registry: registry, withStandIns: false, logger: logger)
        return (PushedStreams([stream]), stream, registry)
    }

    static func playlist(_ count: Int) -> [UInt8] {
        Array(("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n" + (0..<count).map { "#EXTINF:2.000,\nseg\($0).ts\n" }.joined()).utf8)
    }

    static func inode(_ path: String) -> UInt64? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.systemFileNumber] as? NSNumber)?.uint64Value
    }

    /// The recording's files in listing order, and each one's first video PTS.
    static func recorded(_ registry: StreamRegistry, _ stream: String) throws -> [(path: String, firstPTS: Int64)] {
        let variant = try #require(registry.stream(named: stream)?.variants["360p"])
        return try #require(variant.recording).segments.filter { !$0.gap }.compactMap { entry in
            guard let file = variant.segments[entry.uri], let bytes = FileManager.default.contents(atPath: file.path),
                  case let .success(inspection) = PushedSegmentCheck.inspect([UInt8](bytes)) else { return nil }
            return (file.path, inspection.firstPTS)
        }
    }

    @Test func aSegmentOfTheOpenSessionIsLinkedIntoTheRecordingAsKept() async throws {
        let data = try makeTemporaryDirectory("written-once")
        defer { try? FileManager.default.removeItem(atPath: data) }
        let segments = try await PushedLadderHTTPTests.segments("640x360", in: data + "/made")
        let configuration = configuration(data)
        let name = configuration.streams[0].name
        let layout = StreamLayout(dataDirectory: data, stream: name)
        let (receiver, _, registry) = try stream(configuration)
        func put(_ path: IngestPath, _ body: [UInt8]) throws -> String { try receiver.receive(path, body: body).get().message }

        // Before any session: kept as pushed, restamped when its playlist opens the session.
        _ = try put(.segment(stream: name, variant: "360p", name: "seg0.ts"), segments[0])
        #expect(try put(.mediaPlaylist(stream: name, variant: "360p"), Self.playlist(1)).hasPrefix("listed 1 new segment"))
        // In the open session: kept restamped, then linked as it is.
        _ = try put(.segment(stream: name, variant: "360p", name: "seg1.ts"), segments[1])
        let kept = try #require(Self.inode(layout.ingestDirectory("360p") + "/seg1.ts"))
        #expect(try put(.mediaPlaylist(stream: name, variant: "360p"), Self.playlist(2)).hasPrefix("listed 1 new segment"))
        var files = try Self.recorded(registry, name)
        #expect(files.count == 2)
        #expect(Self.inode(files[1].path) == kept, "the file kept on arrival is the recording's: no second write")
        #expect(!FileManager.default.fileExists(atPath: layout.ingestDirectory("360p") + "/seg1.ts"))
        #expect(files[1].firstPTS - files[0].firstPTS == 180_000, "the timeline runs on: \(files.map { $0.firstPTS })")

        // Kept restamped, then the server starts again before its playlist: read as pushed.
        _ = try put(.segment(stream: name, variant: "360p", name: "seg2.ts"), segments[2])
        #expect(FileManager.default.fileExists(atPath: layout.ingestDirectory("360p") + "/seg2.ts.stamp"))
        let (again, _, restarted) = try stream(configuration)
        #expect(try again.receive(.mediaPlaylist(stream: name, variant: "360p"), body: Self.playlist(3)).get().message.hasPrefix("listed 1 new segment"))
        files = try Self.recorded(restarted, name)
        #expect(files.count == 3 && files[2].firstPTS - files[1].firstPTS == 180_000, "\(files.map { $0.firstPTS })")
        #expect(!FileManager.default.fileExists(atPath: layout.ingestDirectory("360p") + "/seg2.ts.stamp"))
    }

    /// A re-upload whose sidecar was written and whose file was not (a full disk, a crash): the
    /// file there is the one it was to replace, and a restart takes it with its own shift.
    @Test func aSidecarAheadOfItsFileIsToldApartAtARestart() async throws {
        let data = try makeTemporaryDirectory("written-once-sidecar")
        defer { try? FileManager.default.removeItem(atPath: data) }
        let segments = try await PushedLadderHTTPTests.segments("640x360", in: data + "/made")
        let configuration = configuration(data)
        let name = configuration.streams[0].name
        let files = PushedStreamFiles(layout: StreamLayout(dataDirectory: data, stream: name))
        let (receiver, _, _) = try stream(configuration)
        _ = try receiver.receive(.segment(stream: name, variant: "360p", name: "seg0.ts"), body: segments[0]).get()
        _ = try receiver.receive(.mediaPlaylist(stream: name, variant: "360p"), body: Self.playlist(1)).get()
        _ = try receiver.receive(.segment(stream: name, variant: "360p", name: "seg1.ts"), body: segments[1]).get()
        let kept = try #require(files.receivedStamps(variant: "360p", name: "seg1.ts"))
        #expect(kept.count == 1 && kept[0].stamp != 0)
        // What a re-upload under another session's shift writes first, before its file.
        let ahead = [ReceivedStamp(stamp: kept[0].stamp + 90_000, firstPTS: kept[0].firstPTS + 90_000)] + kept
        try AtomicFile.write(try JSONEncoder().encode(ahead), to: files.receivedPath(variant: "360p", name: "seg1.ts") + ".stamp")
        let (again, _, restarted) = try stream(configuration)
        #expect(try again.receive(.mediaPlaylist(stream: name, variant: "360p"), body: Self.playlist(2)).get().message.hasPrefix("listed 1 new segment"))
        let recorded = try Self.recorded(restarted, name)
        #expect(recorded.count == 2 && recorded[1].firstPTS - recorded[0].firstPTS == 180_000, "\(recorded.map { $0.firstPTS })")
    }
}
