import Foundation
import HLSOrigin
import HLSPlaylist
import IngestPolicy
import IngestServices
import Logging
import OriginPolicy
import OriginRegistry
import OriginState
import SegmentStore
import SidelineConfig
import SidelineCore
import StreamServices
import Testing

/// The ladder a pushed stream with no configured ladder took from its encoder, kept on disk
/// and served again at start (`ServePlan`), over a temporary data directory.
@Suite struct PushedLadderTests {
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("pushed-ladder-\(UUID().uuidString)").path
    static let phone = [
        DeclaredRung(name: "360p", width: 640, height: 360, bandwidth: 900_000, codecs: ["avc1.64001e", "mp4a.40.2"], frameRate: 25),
        DeclaredRung(name: "180p", width: 320, height: 180, bandwidth: 300_000, codecs: ["avc1.42c00d", "mp4a.40.2"], frameRate: nil),
    ]

    func configuration(pushed: Bool = true, ladderConfigured: Bool = false) -> SidelineConfiguration {
        var configuration = SidelineConfiguration.defaults
        configuration.dataDirectory = data
        configuration.streams[0].input = ""
        if pushed { configuration.streams[0].ingestToken = "secret-token-1234" }
        configuration.streams[0].video.ladderConfigured = ladderConfigured
        return configuration
    }

    func plan(_ configuration: SidelineConfiguration) -> ServePlan {
        ServePlan(configuration: configuration, stream: configuration.streams[0], realtime: true)
    }

    @Test func aKeptLadderIsServedFromTheNextStart() throws {
        defer { try? FileManager.default.removeItem(atPath: data) }
        let configuration = configuration()
        let layout = StreamLayout(dataDirectory: data, stream: configuration.streams[0].name)
        #expect(plan(configuration).stream.video.ladder == SidelineConfiguration.defaultVideo.ladder, "nothing kept: the default ladder")
        try PushedStreamFiles(layout: layout).keep(Self.phone, as: .ladder)
        #expect(PushedLadder.load(PushedStreamFiles(layout: layout)) == Self.phone)
        // No temporary file left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: (layout.pushedLadderPath as NSString).deletingLastPathComponent) == ["ladder.json"])
        let video = plan(configuration).stream.video
        #expect(video.ladder.map(\.name) == ["360p", "180p"])
        #expect(video.ladder.map { "\($0.width)x\($0.height)" } == ["640x360", "320x180"])
        #expect(video.ladder.map(\.maxrate.bitsPerSecond) == [900_000, 300_000])
        #expect(video.frameRate == 25)
    }

    /// The ingest's receiver over the stream as a start builds it (no stand-ins: no FFmpeg).
    func receiver(_ configuration: SidelineConfiguration, registry: StreamRegistry = StreamRegistry()) throws -> PushedStreams {
        PushedStreams([try PushedStream(plan: plan(configuration), registry: registry, withStandIns: false, logger: Logger(label: "test"))])
    }

    static let phoneMaster = Array("""
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2",FRAME-RATE=25
        360p/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=320x180,CODECS="avc1.42c00d,mp4a.40.2"
        180p/index.m3u8

        """.utf8)

    @Test func anEncodersLadderIsTakenLiveAndKeptForTheNextStart() throws {
        defer { try? FileManager.default.removeItem(atPath: data) }
        let configuration = configuration()
        let name = configuration.streams[0].name
        let registry = StreamRegistry()
        let stream = try PushedStream(plan: plan(configuration), registry: registry, withStandIns: false, logger: Logger(label: "test"))
        let receiver = PushedStreams([stream])
        #expect(registry.stream(named: name)?.variantOrder == SidelineConfiguration.defaultVideo.ladder.map(\.name), "the default ladder until the encoder says otherwise")
        // A segment of a rung the master has not declared yet says what to send first.
        guard case let .failure(early) = receiver.receive(.segment(stream: name, variant: "180p", name: "seg0.ts"), body: [0x47]) else {
            Issue.record("a segment of an undeclared rung taken")
            return
        }
        #expect(early.status == 404 && early.reason.contains("upload the master that declares it first"), "\(early.reason)")
        let taken = try receiver.receive(.master(stream: name), body: Self.phoneMaster).get()
        #expect(taken.message == "the encoder's ladder (360p, 180p) taken for this stream and kept; master taken: 360p, 180p")
        // Set up off the request (the next upload waits for it).
        #expect(stream.settleTakenLadder() == nil)
        #expect(registry.stream(named: name)?.variantOrder == ["360p", "180p"], "registered anew for the taken rungs")
        #expect(stream.plan.stream.video.ladder.map(\.name) == ["360p", "180p"])
        #expect(stream.plan.stream.video.frameRate == 25)
        #expect(PushedLadder.load(PushedStreamFiles(layout: StreamLayout(dataDirectory: data, stream: name))) == Self.phone)
        // The next start serves the encoder's ladder and takes its master as its own.
        #expect(try self.receiver(configuration).receive(.master(stream: name), body: Self.phoneMaster).get().message == "master taken: 360p, 180p")
        // A ladder is taken once (issue 33): another, before any segment, is a conflict, and
        // nothing is set up again.
        let other = Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360,CODECS=\"avc1.64001e\"\nother/index.m3u8\n".utf8)
        guard case let .failure(again) = receiver.receive(.master(stream: name), body: other) else {
            Issue.record("a second ladder was taken")
            return
        }
        #expect(again.status == 409 && again.reason.contains("took it from an earlier master"), "\(again.reason)")
        #expect(stream.plan.stream.video.ladder.map(\.name) == ["360p", "180p"])
    }

    /// A pushed angle of a set lists its set's slots (GAP entries) before its encoder's first
    /// master: those fills go with the old ladder, and every new rung starts level on the
    /// set's slots (entry n = slot n in each), with stand-ins for the new rungs.
    @Test func anAngleTakesItsEncodersLadderAndEveryRungStartsLevelOnTheSetsSlots() throws {
        defer { try? FileManager.default.removeItem(atPath: data) }
        var configuration = configuration()
        let name = configuration.streams[0].name
        configuration.angleSets = [AngleSetSettings(name: "match-\(UUID().uuidString.prefix(8))", streams: [name])]
        // The set began 20 s ago: ten 2 s slots passed before this angle was there.
        _ = SetTimelineStore.timeline(of: configuration.angleSets[0], configuration: configuration, now: Date().addingTimeInterval(-20), logger: Logger(label: "test"))
        let registry = StreamRegistry(angleSets: .init(configuration))
        let stream = try PushedStream(plan: plan(configuration), registry: registry, logger: Logger(label: "test"))
        let layout = StreamLayout(dataDirectory: data, stream: name)
        let before = registry.stream(named: name)?.variants["720p"]?.recording?.segments ?? []
        #expect(before.count >= 9 && before.allSatisfy(\.gap), "the slots that passed are GAP entries")
        let taken = try PushedStreams([stream]).receive(.master(stream: name), body: Self.phoneMaster).get()
        #expect(taken.message.hasPrefix("the encoder's ladder (360p, 180p) taken"))
        #expect(stream.settleTakenLadder() == nil)
        #expect(!FileManager.default.fileExists(atPath: layout.variantDirectory("720p")), "the old ladder's fills are gone")
        let rungs = ["360p", "180p"].map { registry.stream(named: name)?.variants[$0]?.recording }
        #expect(rungs.allSatisfy { $0?.mediaSequence == 0 && ($0?.segments.count ?? 0) >= 9 })
        #expect(rungs[0]?.segments.count == rungs[1]?.segments.count, "level")
        #expect(rungs[1]?.segments.first?.programDateTime == before.first?.programDateTime, "entry 0 is slot 0 still")
        #expect(FileManager.default.fileExists(atPath: layout.variantDirectory("180p")))
    }

    @Test func aConfiguredLadderStillRefusesAStrangerAndKeepsNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: data) }
        let configuration = configuration(ladderConfigured: true)
        guard case let .failure(refusal) = try receiver(configuration).receive(.master(stream: configuration.streams[0].name), body: Self.phoneMaster) else {
            Issue.record("a stranger taken against a configured ladder")
            return
        }
        #expect(refusal.status == 400 && refusal.reason.contains("not in this stream's ladder"), "\(refusal.reason)")
        #expect(!FileManager.default.fileExists(atPath: StreamLayout(dataDirectory: data, stream: configuration.streams[0].name).pushedLadderPath))
    }

    @Test func aConfiguredLadderOrACameraIgnoresTheKeptOne() throws {
        defer { try? FileManager.default.removeItem(atPath: data) }
        let layout = StreamLayout(dataDirectory: data, stream: configuration().streams[0].name)
        try PushedStreamFiles(layout: layout).keep(Self.phone, as: .ladder)
        #expect(plan(configuration(ladderConfigured: true)).stream.video.ladder == SidelineConfiguration.defaultVideo.ladder)
        #expect(plan(configuration(pushed: false)).stream.video.ladder == SidelineConfiguration.defaultVideo.ladder)
    }

    @Test func onlyAStreamsOwnLadderBindsAPushedStream() throws {
        let ladder = "ladder: [{name: 360p, width: 640, height: 360, bitrate: 800k}]"
        let topLevel = try SidelineConfiguration.parse(yaml: "video:\n  \(ladder)\nstreams:\n  - {name: phone, ingest_token: secret-token-1234}\n")
        #expect(!topLevel.streams[0].video.ladderConfigured && topLevel.streams[0].video.ladder.map(\.name) == ["360p"])
        let own = try SidelineConfiguration.parse(yaml: "streams:\n  - {name: phone, ingest_token: secret-token-1234, video: {\(ladder)}}\n")
        #expect(own.streams[0].video.ladderConfigured)
        let none = try SidelineConfiguration.parse(yaml: "streams:\n  - {name: phone, ingest_token: secret-token-1234, video: {frame_rate: 25}}\n")
        #expect(!none.streams[0].video.ladderConfigured)
    }

    @Test(arguments: [
        #"[{"name":"../etc","width":640,"height":360,"bandwidth":900000,"codecs":["avc1.64001e"]}]"#,
        #"[{"name":"360p","width":100000,"height":360,"bandwidth":900000,"codecs":["avc1.64001e"]}]"#,
        #"[]"#,
        #"not json"#,
    ])
    func aKeptLadderThatFailsTheChecksIsIgnored(text: String) throws {
        defer { try? FileManager.default.removeItem(atPath: data) }
        let layout = StreamLayout(dataDirectory: data, stream: configuration().streams[0].name)
        try FileManager.default.createDirectory(atPath: (layout.pushedLadderPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: layout.pushedLadderPath, atomically: true, encoding: .utf8)
        #expect(PushedLadder.load(PushedStreamFiles(layout: layout)) == nil)
        #expect(plan(configuration()).stream.video.ladder == SidelineConfiguration.defaultVideo.ladder)
    }
}
