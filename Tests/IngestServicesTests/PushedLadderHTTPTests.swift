import Foundation
import HLSOrigin
import Hummingbird
import HummingbirdTesting
import IngestServices
import Logging
import OriginRegistry
import OriginState
import SidelineConfig
import SidelineCore
import StreamServices
import TestSupport
import Testing

/// A pushed angle needs only a name and a token: on a real server on 127.0.0.1, a stream
/// configured with only `ingest_token` takes the 360p/180p ladder its encoder's master
/// declares (the default ladder has no 180p), serves both rungs from the segments pushed
/// (made here by ffmpeg), refuses another ladder once its encoder has pushed (409), and a
/// start over the same data directory serves the taken ladder again.
@Suite struct PushedLadderHTTPTests {
    static let token = "secret-token-1234"
    static let master = """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=4000000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2",FRAME-RATE=30
        360p/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=320x180,CODECS="avc1.42c00d,mp4a.40.2",FRAME-RATE=30
        180p/index.m3u8

        """

    /// Three 2 s segments of one rung, each starting on a keyframe, timestamps running on.
    static func segments(_ size: String, in directory: String) async throws -> [[UInt8]] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let video = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0", "-pix_fmt", "yuv420p"]
        let made = try await Command.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30", "-f", "lavfi", "-i", "sine=sample_rate=48000", "-t", "6"]
            + video + ["-c:a", "aac", "-f", "segment", "-segment_time", "2", "-segment_format", "mpegts", "-reset_timestamps", "0", directory + "/seg%d.ts"])
        #expect(made.status == 0, "\(made.stderr)")
        return try (0..<3).map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(directory)/seg\($0).ts"))) }
    }

    static var playlist: String {
        "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n" + (0..<3).map { "#EXTINF:2.000,\nseg\($0).ts\n" }.joined()
    }

    func configuration(_ data: String) -> SidelineConfiguration {
        var configuration = SidelineConfiguration.defaults
        configuration.dataDirectory = data
        configuration.segmentDuration = 2
        configuration.streams[0].input = ""
        configuration.streams[0].ingestToken = Self.token
        configuration.streams[0].video.frameRate = 30
        return configuration
    }

    /// The server as `sideline serve` wires a pushed stream: its publisher with stand-ins,
    /// the ingest route, the playlists from the registry.
    func server(_ configuration: SidelineConfiguration) throws -> (some ApplicationProtocol, PushedStream) {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        // The registry's time stands still: this test pushes six seconds of media in one burst,
        // and on a loaded CI box its reads can come more than the stale limit (3 s) after the
        // first rung's last push. Staleness has its own tests (StatusPolicyTests, FailureDrill).
        let registry = StreamRegistry(clock: { 0 })
        let plan = ServePlan(configuration: configuration, stream: configuration.streams[0], realtime: true)
        let stream = try PushedStream(plan: plan, registry: registry, logger: logger)
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger,
                                               routes: [{ IngestRoutes(registry: registry, receiver: PushedStreams([stream])).add(to: $0) }])
        return (app, stream)
    }

    @Test func aStreamWithOnlyATokenTakesItsEncodersLadderLiveAndKeepsIt() async throws {
        let data = try makeTemporaryDirectory("pushed-ladder-http")
        defer { try? FileManager.default.removeItem(atPath: data) }
        let rungs = [("360p", try await Self.segments("640x360", in: data + "/made/360p")), ("180p", try await Self.segments("320x180", in: data + "/made/180p"))]
        let configuration = configuration(data)
        let name = configuration.streams[0].name
        #expect(!configuration.streams[0].video.ladder.contains { $0.name == "180p" }, "the default ladder has no 180p: a stranger to it")
        let bearer: HTTPFields = [.authorization: "Bearer \(Self.token)"]
        let (app, stream) = try server(configuration)
        try await app.test(.live) { client in
            try await client.execute(uri: "/ingest/\(name)/master.m3u8", method: .put, headers: bearer, body: ByteBuffer(string: Self.master)) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                #expect(String(buffer: response.body).contains("the encoder's ladder (360p, 180p) taken"))
            }
            for (rung, segments) in rungs {
                for (index, segment) in segments.enumerated() {
                    try await client.execute(uri: "/ingest/\(name)/\(rung)/seg\(index).ts", method: .put, headers: bearer, body: ByteBuffer(bytes: segment)) { response in
                        #expect(response.status == .created, "\(rung) seg\(index): \(String(buffer: response.body))")
                    }
                }
                try await client.execute(uri: "/ingest/\(name)/\(rung)/index.m3u8", method: .put, headers: bearer, body: ByteBuffer(string: Self.playlist)) { response in
                    #expect(response.status == .ok && String(buffer: response.body).hasPrefix("listed 3 new segments"), "\(rung): \(String(buffer: response.body))")
                }
            }
            for rung in ["360p", "180p"] {
                try await client.execute(uri: "/live/\(name)/\(rung)/index.m3u8", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body).components(separatedBy: "#EXTINF").count - 1 == 3, "\(String(buffer: response.body))")
                }
            }
            try await client.execute(uri: "/live/\(name)/master.m3u8", method: .get) { response in
                #expect(response.status == .ok)
                let text = String(buffer: response.body)
                #expect(text.contains("360p/index.m3u8") && text.contains("180p/index.m3u8") && !text.contains("720p"), "\(text)")
                #expect(text.contains("RESOLUTION=320x180"), "\(text)")
            }
            // The encoder has pushed on 360p/180p: another ladder is a conflict, not taken.
            let other = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1920x1080,CODECS=\"avc1.640028\"\n1080p/index.m3u8\n"
            try await client.execute(uri: "/ingest/\(name)/master.m3u8", method: .put, headers: bearer, body: ByteBuffer(string: other)) { response in
                #expect(response.status == .conflict)
                #expect(String(buffer: response.body).contains("move \(data)/\(name) away"), "\(String(buffer: response.body))")
            }
        }
        #expect(stream.plan.stream.video.ladder.map(\.name) == ["360p", "180p"])
        // A restart over the same data directory: the taken ladder and what was pushed on it.
        let (restarted, again) = try server(configuration)
        #expect(again.plan.stream.video.ladder.map(\.name) == ["360p", "180p"])
        try await restarted.test(.live) { client in
            for rung in ["360p", "180p"] {
                try await client.execute(uri: "/live/\(name)/\(rung)/index.m3u8", method: .get) { response in
                    #expect(response.status == .ok && String(buffer: response.body).contains("#EXTINF"), "\(rung)")
                }
            }
            try await client.execute(uri: "/ingest/\(name)/master.m3u8", method: .put, headers: bearer, body: ByteBuffer(string: Self.master)) { response in
                #expect(response.status == .ok && String(buffer: response.body) == "master taken: 360p, 180p\n", "\(String(buffer: response.body))")
            }
        }
    }

    /// A declared rung may not be named as a file or folder the stream keeps (issue 33). Before,
    /// a master declaring `master.m3u8` (or `ingest`) was taken: the rung's folder stood where
    /// the master is written, and a start over the data directory failed until it was deleted.
    @Test(arguments: ["master.m3u8", "ingest", "timeline.json", "markers.json"])
    func aRungNamedAsAFileTheStreamKeepsIsRefusedAndTheServerStartsAgain(rung: String) async throws {
        let data = try makeTemporaryDirectory("pushed-ladder-names")
        defer { try? FileManager.default.removeItem(atPath: data) }
        let configuration = configuration(data)
        let name = configuration.streams[0].name
        let bearer: HTTPFields = [.authorization: "Bearer \(Self.token)"]
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS=\"avc1.64001e,mp4a.40.2\"\n\(rung)/index.m3u8\n"
        let (app, stream) = try server(configuration)
        try await app.test(.live) { client in
            try await client.execute(uri: "/ingest/\(name)/master.m3u8", method: .put, headers: bearer, body: ByteBuffer(string: master)) { response in
                #expect(response.status == .badRequest, "\(String(buffer: response.body))")
                #expect(String(buffer: response.body).contains("none of the names the server keeps"), "\(String(buffer: response.body))")
            }
        }
        #expect(!stream.plan.stream.video.ladder.contains { $0.name == rung })
        var isDirectory: ObjCBool = false
        #expect(!(FileManager.default.fileExists(atPath: "\(data)/\(name)/\(rung)", isDirectory: &isDirectory) && isDirectory.boolValue), "no folder named \(rung)")
        // A start over the same data directory serves the stream.
        let (_, again) = try server(configuration)
        #expect(again.plan.stream.video.ladder.map(\.name) == configuration.streams[0].video.ladder.map(\.name))
    }

    /// Declared CODECS are held to what the segments carry (issue 33): they go into the master
    /// players get, and into a set's. HEVC declared for H.264 segments refuses the segments
    /// until a master says what they are; a master that drops the audio is taken (an encoder
    /// that starts again without it), and the segments with audio after it are refused.
    @Test func declaredCodecsTheSegmentsCannotCarryAreRefused() async throws {
        let data = try makeTemporaryDirectory("pushed-ladder-codecs")
        defer { try? FileManager.default.removeItem(atPath: data) }
        let segments = try await Self.segments("640x360", in: data + "/made/360p")
        let configuration = configuration(data)
        let name = configuration.streams[0].name
        let bearer: HTTPFields = [.authorization: "Bearer \(Self.token)"]
        @Sendable func master(_ codecs: String) -> ByteBuffer {
            ByteBuffer(string: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360,CODECS=\"\(codecs)\",FRAME-RATE=30\n360p/index.m3u8\n")
        }
        let (app, _) = try server(configuration)
        try await app.test(.live) { client in
            try await client.execute(uri: "/ingest/\(name)/master.m3u8", method: .put, headers: bearer, body: master("hvc1.1.6.L93.B0,mp4a.40.2")) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/ingest/\(name)/360p/seg0.ts", method: .put, headers: bearer, body: ByteBuffer(bytes: segments[0])) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("CODECS declares AAC and HEVC, but the segments carry AAC and H.264"), "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/ingest/\(name)/master.m3u8", method: .put, headers: bearer, body: master("avc1.64001e,mp4a.40.2")) { response in
                #expect(response.status == .ok && String(buffer: response.body).hasPrefix("master taken: 360p"), "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/ingest/\(name)/360p/seg0.ts", method: .put, headers: bearer, body: ByteBuffer(bytes: segments[0])) { response in
                #expect(response.status == .created, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/ingest/\(name)/master.m3u8", method: .put, headers: bearer, body: master("avc1.64001e")) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/ingest/\(name)/360p/seg1.ts", method: .put, headers: bearer, body: ByteBuffer(bytes: segments[1])) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("CODECS declares H.264, but the segments carry AAC and H.264"), "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/live/\(name)/master.m3u8", method: .get) { response in
                #expect(!String(buffer: response.body).contains("hvc1"), "\(String(buffer: response.body))")
            }
        }
    }
}
