import Foundation
import SidelineConfig
import SidelineCore
import Testing

/// The repository root, found from this file's path, so tests can read Config/ and Samples/.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite struct SidelineConfigurationTests {
    @Test func shippedConfigFileHoldsExactlyTheDefaults() throws {
        let path = repositoryRoot.appendingPathComponent("Config/sideline.yaml").path
        let loaded = try SidelineConfiguration.load(contentsOf: path)
        #expect(loaded == SidelineConfiguration.defaults)
    }

    @Test func emptyFileMeansDefaults() throws {
        #expect(try SidelineConfiguration.parse(yaml: "") == .defaults)
        #expect(try SidelineConfiguration.parse(yaml: "# only a comment\n") == .defaults)
    }

    @Test func keysOverrideDefaultsAndTheRestStay() throws {
        let config = try SidelineConfiguration.parse(yaml: """
        server:
          port: 9000
        segment_duration: 4
        stream:
          input: rtsp://camera.local/stream1
          loop: false
        video:
          frame_rate: 29.97
          ladder:
            - name: 540p
              width: 960
              height: 540
              bitrate: 1800k
              lookahead: 12
        audio:
          bitrate: 96k
        """)
        #expect(config.server.port == 9000)
        #expect(config.server.host == "0.0.0.0")
        #expect(config.segmentDuration == 4)
        #expect(config.streams[0].input == "rtsp://camera.local/stream1")
        #expect(config.streams[0].loop == false)
        #expect(config.streams[0].name == "main")
        #expect(config.video.frameRate == 29.97)
        #expect(config.streams[0].video == config.video, "a stream without its own video section has the top-level one")
        let variant = try #require(config.video.ladder.first)
        #expect(variant.bitrate == .kbps(1800))
        #expect(variant.maxrate == .kbps(1980), "maxrate defaults to 1.1 x bitrate")
        #expect(variant.bufsize == .kbps(3600), "bufsize defaults to 2 x bitrate")
        #expect(variant.preset == "veryfast")
        #expect(variant.lookahead == 12)
        #expect(SidelineConfiguration.defaults.video.ladder[0].lookahead == SidelineConfiguration.defaultLookahead)
        #expect(config.audio.bitrate == .kbps(96))
    }

    @Test func deltaUpdatesAndBlockingReloadCanBeTurnedOff() throws {
        #expect(SidelineConfiguration.defaults.server.deltaUpdates && SidelineConfiguration.defaults.server.blockingReload)
        let config = try SidelineConfiguration.parse(yaml: "server:\n  delta_updates: false\n  blocking_reload: false\n")
        #expect(!config.server.deltaUpdates && !config.server.blockingReload)
        #expect(throws: ConfigError.self) { try SidelineConfiguration.parse(yaml: "server:\n  delta_updates: sometimes\n") }
    }

    @Test func theFastPathIsOnUnlessTurnedOff() throws {
        #expect(SidelineConfiguration.defaults.server.fastPath)
        #expect(try !SidelineConfiguration.parse(yaml: "server:\n  fast_path: false\n").server.fastPath)
        #expect(throws: ConfigError.self) { try SidelineConfiguration.parse(yaml: "server:\n  fast_path: 2\n") }
    }

    @Test func severalStreamsEachWithTheirOwnInputAndLadder() throws {
        let config = try SidelineConfiguration.parse(yaml: """
        video:
          ladder:
            - {name: 540p, width: 960, height: 540, bitrate: 1800k}
        streams:
          - name: north
            input: rtsp://north.local/stream1
            title: North stand
          - name: tunnel
            input: /dev/video0
            loop: false
            input_options: {video_size: 1280x720}
            video:
              frame_rate: 25
              ladder:
                - {name: 360p, width: 640, height: 360, bitrate: 800k}
                - {name: 180p, width: 320, height: 180, bitrate: 300k}
        """)
        #expect(config.streams.map(\.name) == ["north", "tunnel"])
        #expect(config.streams[0].input == "rtsp://north.local/stream1")
        #expect(config.streams[0].title == "North stand")
        #expect(config.streams[0].loop, "keys a stream leaves out keep their defaults")
        #expect(config.streams[0].video.ladder.map(\.name) == ["540p"], "the top-level ladder is the default")
        #expect(config.streams[0].video.frameRate == 30)
        #expect(config.streams[1].video.frameRate == 25)
        #expect(config.streams[1].video.ladder.map(\.name) == ["360p", "180p"])
        #expect(config.streams[1].inputOptions == ["video_size": "1280x720"])
        #expect(!config.streams[1].loop)
    }

    /// Issue 19's interface: `{name, ingest_token}` and no `input` is a stream a remote encoder pushes.
    @Test func aStreamWithAnIngestTokenAndNoInputIsPushed() throws {
        let config = try SidelineConfiguration.parse(yaml: """
        streams:
          - name: roof
            ingest_token: 0123456789abcdef0123
          - name: north
            input: rtsp://north.local/stream1
        """)
        #expect(config.streams[0].isPushed && config.streams[0].input.isEmpty && config.streams[0].ingestToken == "0123456789abcdef0123")
        #expect(!config.streams[1].isPushed && config.streams[1].ingestToken.isEmpty)
        let single = try SidelineConfiguration.parse(yaml: "stream: {name: roof, ingest_token: 0123456789abcdef}\n")
        #expect(single.streams[0].isPushed && single.streams[0].input.isEmpty, "the sample is not the input of a pushed stream")
        // `--input` given for a pushed stream: refused when validated after the overrides.
        var overridden = single
        overridden.streams[0].input = "testpattern"
        #expect(throws: ConfigError.self) { try overridden.validate() }
    }

    /// Issue 20's interface: `viewer_token` makes a stream private, `access.signing_key` turns
    /// signed URLs on, `server.log_headers` names the headers a request's log line carries.
    @Test func viewerAccessKeys() throws {
        let config = try SidelineConfiguration.parse(yaml: """
        access: {signing_key: 00112233445566778899aabb}
        server: {log_headers: [User-Agent, CMCD-Session]}
        streams:
          - {name: home, input: testpattern, viewer_token: home-viewers-0123456789}
          - {name: away, input: testpattern}
        """)
        #expect(config.access.signingKey == "00112233445566778899aabb")
        #expect(config.server.logHeaders == ["User-Agent", "CMCD-Session"])
        #expect(config.streams.map(\.viewerToken) == ["home-viewers-0123456789", ""])
        #expect(SidelineConfiguration.defaults.access.signingKey.isEmpty && SidelineConfiguration.defaults.streams[0].viewerToken.isEmpty, "off by default")
        for (yaml, key) in [("stream: {name: a, viewer_token: short}\n", "stream.viewer_token"), ("access: {signing_key: \"has a space in it here\"}\n", "access.signing_key"),
                            ("access: {key: x}\n", "access.key"), ("server: {log_headers: [\"Bad Header\"]}\n", "server.log_headers")] {
            #expect {
                try SidelineConfiguration.parse(yaml: yaml, file: "test.yaml")
            } throws: { error in
                "\(error)".contains(key)
            }
        }
    }

    /// Issue 20's interface: `server.tls: {certificate, key}` turns TLS on; `server.plain_port`
    /// is a second, plain port beside it (redirecting unless `plain_http: serve`).
    @Test func tlsKeys() throws {
        let config = try SidelineConfiguration.parse(yaml: "server: {tls: {certificate: /etc/s/server.pem, key: /etc/s/server.key}, plain_port: 8080, plain_http: serve}\n")
        #expect(config.server.tls == TLSSettings(certificate: "/etc/s/server.pem", key: "/etc/s/server.key"))
        #expect(config.server.plainPort == 8080 && config.server.plainHTTP == .serve)
        #expect(try SidelineConfiguration.parse(yaml: "server: {tls: {certificate: a, key: b}, plain_port: 80}\n").server.plainHTTP == .redirect)
        #expect(SidelineConfiguration.defaults.server.tls == nil && SidelineConfiguration.defaults.server.plainPort == nil)
        for (yaml, key) in [("server: {tls: {certificate: a}}\n", "server.tls.key"), ("server: {plain_port: 80}\n", "server.plain_port"),
                            ("server: {tls: {certificate: a, key: b, password: c}}\n", "server.tls.password"),
                            ("server: {tls: {certificate: a, key: b}, plain_http: maybe}\n", "server.plain_http")] {
            #expect {
                try SidelineConfiguration.parse(yaml: yaml, file: "test.yaml")
            } throws: { error in
                "\(error)".contains(key)
            }
        }
    }

    /// `push`: sideline push's uplink rule and queue; bad values name the key.
    @Test func pushKeysAndTheirRefusals() throws {
        let config = try SidelineConfiguration.parse(yaml: "push: {ratio: 0.5, min_bitrate: 200k, max_bitrate: 2M, backlog: catch-up, queue_dir: /var/q}\n")
        #expect(config.push.ratio == 0.5 && config.push.minBitrate == .kbps(200) && config.push.maxBitrate == .kbps(2000))
        #expect(config.push.backlog == .catchUp && config.push.queueDirectory == "/var/q")
        #expect(try SidelineConfiguration.parse(yaml: "push: {max_bitrate: 0}\n").push.maxBitrate == nil, "0: the ladder's total")
        for (yaml, key) in [("push: {backlog: newest}\n", "push.backlog"), ("push: {ratio: 2}\n", "push.ratio"),
                            ("push: {min_bitrate: 500k, max_bitrate: 300k}\n", "push.max_bitrate"), ("push: {max_bitrate: fast}\n", "push.max_bitrate")] {
            #expect {
                try SidelineConfiguration.parse(yaml: yaml, file: "test.yaml")
            } throws: { error in
                guard case let .invalidValue(_, found, _, _) = error as? ConfigError else { return false }
                return found == key
            }
        }
    }

    @Test func unknownKeysInsideAStreamEntryAreNamed() {
        #expect {
            try SidelineConfiguration.parse(yaml: "streams:\n  - {name: a, input: x.mp4, inptu_timeout: 5}\n", file: "test.yaml")
        } throws: { error in
            guard case let .unknownKey(_, found, _) = error as? ConfigError else { return false }
            return found == "streams[0].inptu_timeout"
        }
    }

    @Test func inputOptionsAreKeptAsText() throws {
        let config = try SidelineConfiguration.parse(yaml: "stream:\n  input_options:\n    rtsp_transport: tcp\n    framerate: 30\n")
        #expect(config.streams[0].inputOptions == ["rtsp_transport": "tcp", "framerate": "30"])
    }

    @Test func sessionMetadataAndStartOffset() throws {
        let backups = try SidelineConfiguration.parse(yaml: "stream:\n  backups: [http://10.0.0.3:8081, https://bench.local/]\nanalyst:\n  token: analyst-0123456789\n")
        #expect(backups.streams[0].backups == ["http://10.0.0.3:8081", "https://bench.local/"] && backups.analyst.token == "analyst-0123456789")
        let config = try SidelineConfiguration.parse(yaml: "stream:\n  title: North v South\n  keywords: football, final\n  start_offset: -6\n")
        #expect(config.streams[0].title == "North v South")
        #expect(config.streams[0].keywords == "football, final")
        #expect(config.streams[0].description == "")
        #expect(config.streams[0].startOffset == -6)
    }

    @Test(arguments: [
        ("segment_duraton: 2\n", "segment_duraton"),
        ("server:\n  prot: 80\n", "server.prot"),
        ("admin:\n  tokn: x\n", "admin.tokn"),
        ("retention:\n  max_age: 3\n", "retention.max_age"),
        ("video:\n  ladder:\n    - name: a\n      width: 640\n      height: 360\n      bitrate: 1M\n      presett: fast\n", "video.ladder[0].presett"),
    ])
    func unknownKeysAreNamed(yaml: String, key: String) {
        #expect {
            try SidelineConfiguration.parse(yaml: yaml, file: "test.yaml")
        } throws: { error in
            guard case let .unknownKey(file, found, _) = error as? ConfigError else { return false }
            return file == "test.yaml" && found == key && "\(error)".contains("unknown key '\(key)'")
        }
    }

    @Test(arguments: [
        ("server:\n  port: 70000\n", "server.port"),
        ("server:\n  port: eighty\n", "server.port"),
        ("segment_duration: 0\n", "segment_duration"),
        ("stream:\n  name: ../etc\n", "stream.name"),
        // Names the server keeps beside a stream's variants, and in the data directory (issue 33).
        ("stream:\n  name: push-queue\n", "stream.name"),
        ("stream:\n  name: main.previous-1\n", "stream.name"),
        ("video:\n  ladder:\n    - {name: ingest, width: 640, height: 360, bitrate: 1M}\n", "video.ladder[0].name"),
        ("video:\n  ladder:\n    - {name: master.m3u8, width: 640, height: 360, bitrate: 1M}\n", "video.ladder[0].name"),
        ("streams:\n  - {name: a, input: x.mp4}\nangle_sets:\n  - {name: markers.json, streams: [a]}\n", "angle_sets[0].name"),
        // Names that differ only in case are one folder on a disk that folds case.
        ("streams:\n  - {name: Cam1, input: x.mp4}\n  - {name: cam1, input: y.mp4}\n", "streams[1].name"),
        ("video:\n  ladder:\n    - {name: hd, width: 640, height: 360, bitrate: 1M}\n    - {name: HD, width: 320, height: 180, bitrate: 500k}\n", "video.ladder[1].name"),
        ("streams:\n  - {name: a, input: x.mp4}\nangle_sets:\n  - {name: A, streams: [a]}\n", "angle_sets[0].name"),
        ("stream:\n  loop: sometimes\n", "stream.loop"),
        ("stream:\n  on_input_loss: freeze\n", "stream.on_input_loss"),
        ("stream:\n  loss_timeout: 0\n", "stream.loss_timeout"),
        ("stream:\n  watchdog_timeout: 2\n", "stream.watchdog_timeout"),
        ("segment_duration: 6\nstream:\n  watchdog_timeout: 5\n", "stream.watchdog_timeout"),
        ("stream:\n  watchdog_timeout: -1\n", "stream.watchdog_timeout"),
        ("retention:\n  max_age_hours: -1\n", "retention.max_age_hours"),
        ("retention:\n  max_size_gb: lots\n", "retention.max_size_gb"),
        ("retention:\n  check_interval: 0\n", "retention.check_interval"),
        ("server:\n  max_connections: -1\n", "server.max_connections"),
        ("admin:\n  drills: maybe\n", "admin.drills"),
        ("video:\n  frame_rate: 0\n", "video.frame_rate"),
        ("video:\n  ladder: []\n", "video.ladder"),
        ("video:\n  ladder:\n    - name: a\n      width: 641\n      height: 360\n      bitrate: 1M\n", "video.ladder[0].width/height"),
        ("video:\n  ladder:\n    - name: a\n      width: 640\n      height: 360\n      bitrate: fast\n", "video.ladder[0].bitrate"),
        ("video:\n  ladder:\n    - name: a\n      width: 640\n      height: 360\n      bitrate: 1M\n      preset: quick\n", "video.ladder[0].preset"),
        ("video:\n  ladder:\n    - name: a\n      width: 640\n      height: 360\n      bitrate: 2M\n      maxrate: 1M\n", "video.ladder[0].maxrate"),
        ("video:\n  ladder:\n    - name: a\n      width: 640\n      height: 360\n", "video.ladder[0].bitrate"),
        ("video:\n  ladder:\n    - {name: a, width: 640, height: 360, bitrate: 1M}\n    - {name: a, width: 320, height: 180, bitrate: 500k}\n", "video.ladder[1].name"),
        ("audio:\n  channels: 6\n", "audio.channels"),
        ("stream:\n  title: 'The \"final\"'\n", "stream.title"),
        ("stream:\n  start_offset: soon\n", "stream.start_offset"),
        ("stream:\n  input_options: tcp\n", "stream.input_options"),
        ("stream:\n  backups: http://10.0.0.3:8081\n", "stream.backups"),
        ("stream:\n  backups: [ftp://10.0.0.3]\n", "stream.backups"),
        ("stream:\n  backups: ['http://10.0.0.3:8081/?a=1']\n", "stream.backups"),
        ("analyst:\n  token: [a]\n", "analyst.token"),
        ("server: 8080\n", "server"),
        ("video:\n  ladder:\n    - {name: a, width: 640, height: 360, bitrate: 1M, lookahead: -1}\n", "video.ladder[0].lookahead"),
        ("streams:\n  - {name: a, input: x.mp4}\n  - {name: a, input: y.mp4}\n", "streams[1].name"),
        ("streams:\n  - {input: x.mp4}\n", "streams[0].name"),
        ("streams:\n  - {name: a}\n", "streams[0].input"),
        ("streams: []\n", "streams"),
        ("stream: {name: a}\nstreams:\n  - {name: b, input: y.mp4}\n", "streams"),
        ("streams:\n  - {name: a, input: x.mp4, video: {ladder: []}}\n", "streams[0].video.ladder"),
        ("streams:\n  - {name: a, ingest_token: short}\n", "streams[0].ingest_token"),
        ("streams:\n  - {name: a, ingest_token: 'has a space in it 0123'}\n", "streams[0].ingest_token"),
        ("streams:\n  - {name: a, input: x.mp4, ingest_token: 0123456789abcdef}\n", "streams[0].ingest_token"),
        ("stream: {input: x.mp4, ingest_token: 0123456789abcdef}\n", "stream.ingest_token"),
        ("streams:\n  - {name: a, input: x.mp4, video: {ladder: [{name: v, width: 33, height: 20, bitrate: 1M}]}}\n", "streams[0].video.ladder[0].width/height"),
    ])
    func badValuesNameTheKeyAndWhatIsExpected(yaml: String, key: String) {
        #expect {
            try SidelineConfiguration.parse(yaml: yaml, file: "test.yaml")
        } throws: { error in
            guard case let .invalidValue(_, found, _, expected) = error as? ConfigError else { return false }
            return found == key && !expected.isEmpty
        }
    }

    @Test func yamlSyntaxErrorsAreReported() {
        #expect(throws: ConfigError.self) { try SidelineConfiguration.parse(yaml: "server:\n  port: [80\n") }
    }

    @Test func missingFileSaysSo() {
        #expect {
            try SidelineConfiguration.load(contentsOf: "/nonexistent/sideline.yaml")
        } throws: { error in
            "\(error)".contains("/nonexistent/sideline.yaml") && "\(error)".contains("no such file")
        }
    }

    @Test(arguments: [("3000k", 3_000_000), ("3M", 3_000_000), ("128000", 128_000), (" 96K ", 96_000), ("1.5M", 1_500_000)])
    func bitRatesParse(text: String, bits: Int) {
        #expect(BitRate(parsing: text)?.bitsPerSecond == bits)
    }

    @Test(arguments: ["", "0", "-5k", "3G", "k", "1e3k"])
    func badBitRatesDoNotParse(text: String) {
        #expect(BitRate(parsing: text) == nil)
    }
}
