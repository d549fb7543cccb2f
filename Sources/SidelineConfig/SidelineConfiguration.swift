import SidelineCore

/// Everything `sideline serve` needs to know. `Config/sideline.yaml` documents every key and
/// holds exactly these defaults (a test decodes it and compares).
public struct SidelineConfiguration: Sendable, Equatable {
    public var server: ServerSettings
    /// `data_dir`: where streams are recorded; relative paths are resolved against the working directory.
    public var dataDirectory: String
    /// `segment_duration`: D in seconds; segment k covers [k x D, (k+1) x D) of output time.
    public var segmentDuration: Double
    /// `part_duration`: the parts (Low-Latency HLS) each camera's segment is cut into, in
    /// seconds; 0 lists no parts. On by default (Docs/low-latency.md says why this value).
    public var partDuration: Double = Self.defaultPartDuration
    /// `stream` (one camera) or `streams` (several): each with its own input and ladder.
    public var streams: [StreamSettings]
    /// `video`: the frame rate and ladder of every stream that does not set its own.
    public var video: VideoSettings
    public var audio: AudioSettings
    public var admin: AdminSettings
    public var analyst = AnalystSettings()
    public var retention: RetentionSettings
    /// `push`: how `sideline push` follows its uplink and keeps what it has not sent.
    public var push = PushSettings()
    /// `access`: how viewers of private streams are let in.
    public var access = AccessSettings()
    /// `clips`: how long, how many and how much scratch disk viewers' clips may take.
    public var clips = ClipSettings()
    /// `ingest`: uploads in flight, bytes buffered and unplaced segments of pushed streams.
    public var ingest = IngestSettings()
    /// `angle_sets`: cameras grouped as one match (empty: none).
    public var angleSets: [AngleSetSettings] = []
    /// A standby or primary of another box (issue 35); nil: one box, as ever.
    public var redundancy: RedundancySettings?
    /// `boxes`: the venue's other boxes and the cameras each encodes (issue 35); empty: this
    /// box's own cameras only.
    public var boxes: [VenueBoxSettings] = []

    public init(server: ServerSettings, dataDirectory: String, segmentDuration: Double, streams: [StreamSettings], video: VideoSettings, audio: AudioSettings,
                admin: AdminSettings = AdminSettings(), retention: RetentionSettings = RetentionSettings()) {
        self.server = server
        self.admin = admin
        self.retention = retention
        self.dataDirectory = dataDirectory
        self.segmentDuration = segmentDuration
        self.streams = streams
        self.video = video
        self.audio = audio
    }

    /// `part_duration` when the config does not set it.
    public static let defaultPartDuration = 0.2

    /// x264 rc-lookahead of a rung that does not set `lookahead`, in frames. Shorter than
    /// veryfast's own 10, for publish latency (see Docs/benchmarks.md).
    public static let defaultLookahead = 5

    /// The video settings every stream starts from: a three-rung ladder at veryfast, which runs
    /// a 720p30 camera faster than real time on the 2-core reference machine
    /// (Docs/benchmarks.md, measured by `scripts/bench/run ladder-sweep`).
    public static let defaultVideo = VideoSettings(
        frameRate: 30,
        ladder: [
            Rung(
                name: "720p", width: 1280, height: 720,
                bitrate: .kbps(3000), maxrate: .kbps(3300), bufsize: .kbps(6000),
                preset: "veryfast", profile: "high", lookahead: defaultLookahead
            ),
            Rung(
                name: "540p", width: 960, height: 540,
                bitrate: .kbps(1800), maxrate: .kbps(1980), bufsize: .kbps(3600),
                preset: "veryfast", profile: "high", lookahead: defaultLookahead
            ),
            Rung(
                name: "360p", width: 640, height: 360,
                bitrate: .kbps(800), maxrate: .kbps(880), bufsize: .kbps(1600),
                preset: "veryfast", profile: "main", lookahead: defaultLookahead
            ),
        ]
    )

    /// The stream a config without `stream`/`streams` has; also what each entry of `streams`
    /// starts from before its own keys.
    public static let defaultStream = StreamSettings(name: "main", input: "Samples/sample.mp4", loop: true, inputTimeout: 10, video: defaultVideo)

    public static let defaults = SidelineConfiguration(
        server: ServerSettings(host: "0.0.0.0", port: 8080),
        dataDirectory: "data",
        segmentDuration: 2,
        streams: [defaultStream],
        video: defaultVideo,
        audio: AudioSettings(bitrate: .kbps(128), sampleRate: 48000, channels: 2)
    )
}

public struct ServerSettings: Sendable, Equatable {
    /// `server.host`: the address to listen on; 0.0.0.0 serves the whole LAN.
    public var host: String
    /// `server.port`: 0 picks a free port (printed at start).
    public var port: Int
    /// `server.max_connections`: open connections above which requests get 503 with
    /// Retry-After; nil (0 in the file) for no limit.
    public var maxConnections: Int?
    /// `server.max_requests_in_flight`: requests handled at once above which new ones get 503
    /// with Retry-After; nil (0 in the file) for no limit.
    public var maxRequestsInFlight: Int?
    /// `server.max_connections_per_client`: connections one client address may hold open;
    /// more are closed at once, so one device cannot take the whole `max_connections`. nil (0
    /// in the file): no cap.
    public var maxConnectionsPerClient: Int? = 64
    /// `server.idle_timeout`: seconds a connection may send nothing (between requests, or
    /// while its request's head trickles in) before it is closed. nil (0): never.
    public var idleTimeout: Double? = 20
    /// `server.write_timeout`: seconds an answer's writes may make no progress (the client
    /// stopped reading) before its connection is closed. nil (0): never.
    public var writeTimeout: Double? = 30
    /// `server.max_held_per_client`: requests one client may have held at once (blocking
    /// reloads and hinted parts, Low-Latency HLS); more are answered 429. Held requests do not
    /// count against `max_requests_in_flight`. nil (0 in the file): no bound.
    public var maxHeldPerClient: Int? = 32
    /// `server.trusted_proxies`: addresses or CIDR ranges of edge caches in front of this
    /// server, whose X-Forwarded-For names the player: the per-client limits, the credential
    /// throttle and the request log then count the player, never the edge. A forwarded-for
    /// header from any other address is ignored. Empty by default.
    public var trustedProxies: [IPAddressRange] = []
    /// `server.delta_updates`: live media playlists offer Playlist Delta Updates
    /// (`CAN-SKIP-UNTIL`, `_HLS_skip`), so a player at hour 3 reloads a few hundred bytes.
    public var deltaUpdates = true
    /// `server.blocking_reload`: live media playlists offer blocking reload
    /// (`CAN-BLOCK-RELOAD`, `_HLS_msn`): a request waits for the next segment instead of polling.
    public var blockingReload = true
    /// `server.segment_cache_mb`: memory for the newest segments' bytes, so players at the
    /// live edge are answered from one shared buffer instead of a file read each. 0: off.
    public var segmentCacheMegabytes = 128
    /// `server.request_metrics`: per-route request counts and durations on `/metrics`
    /// (Hummingbird's metrics middleware). Off by default: it costs throughput at full load.
    public var requestMetrics = false
    /// `server.fast_path`: answer playlists and cached segments on the event loop that read
    /// the request, without the hop to a Swift task (HLSOrigin's OriginWire). Same bytes
    /// either way; off only to compare or to rule it out when diagnosing.
    public var fastPath = true
    /// `server.log_headers`: request headers each request's log line carries (a player's
    /// session ID, its User-Agent), for diagnosing one player among many.
    public var logHeaders: [String] = []
    /// `server.tls`: serve `port` over TLS with this certificate chain and key (PEM files).
    /// Nil: plain HTTP, as on a trusted LAN.
    public var tls: TLSSettings?
    /// `server.plain_port`: a plain-HTTP port beside the TLS one, which redirects to it or
    /// serves as it does (`server.plain_http`). Nil: none.
    public var plainPort: Int?
    public var plainHTTP: PlainHTTP = .redirect
    /// `server.public_name`: the name (or address) players reach the TLS port by, the one
    /// its certificate is for. The plain port redirects there; never to the name a request's
    /// Host header gives. Nil: the certificate's first DNS name or IP address.
    public var publicName: String?
    public init(host: String, port: Int, maxConnections: Int? = 1024, maxRequestsInFlight: Int? = 512) {
        self.host = host
        self.port = port
        self.maxConnections = maxConnections
        self.maxRequestsInFlight = maxRequestsInFlight
    }
}

/// `server.tls`: the certificate chain and its private key, PEM files, read at start and again
/// on SIGHUP (certificates are renewed during long events).
public struct TLSSettings: Sendable, Equatable {
    public var certificate: String
    public var key: String
    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }
}

/// `server.plain_http`: what the plain port does.
public enum PlainHTTP: String, Sendable, Equatable, CaseIterable {
    /// 308 to the same path on the TLS port: players and browsers follow it.
    case redirect
    /// The same answers as the TLS port, in clear text (for players that cannot be given the
    /// venue CA, on a part of the network that is trusted).
    case serve
}

/// `access`: viewer access beside the per-stream `viewer_token`s.
public struct AccessSettings: Sendable, Equatable {
    /// `access.signing_key`: the secret signed URLs are made with (`sideline sign`, and the
    /// page's URLs for private streams). Empty: signed URLs are off. The environment variable
    /// SIDELINE_SIGNING_KEY, when set, takes its place.
    public var signingKey = ""
    /// `access.failed_credentials_burst`: refused credentials (401, 403) one client address
    /// may send at once before it is answered 429; one more is allowed every
    /// `failed_credentials_interval` seconds.
    public var failedCredentialsBurst = 10
    public var failedCredentialsInterval = 6.0
    public init(signingKey: String = "") { self.signingKey = signingKey }
}

/// `admin`: the operator's HTTP API under `/admin/`. Off while `token` is empty.
/// `retention`: when recordings are removed to make room. A stream that is being encoded is
/// never removed; an ended stream, or a recording no configured stream continues, is.
public struct RetentionSettings: Sendable, Equatable {
    /// `retention.max_age_hours`: remove a recording nothing was written to for this long.
    /// 0: no limit.
    public var maxAgeHours: Double
    /// `retention.max_size_gb`: remove a recording larger than this (10^9 bytes). 0: no limit.
    public var maxSizeGB: Double
    /// `retention.check_interval`: seconds between two looks at the data directory.
    public var checkInterval: Double
    public init(maxAgeHours: Double = 0, maxSizeGB: Double = 0, checkInterval: Double = 60) {
        self.maxAgeHours = maxAgeHours
        self.maxSizeGB = maxSizeGB
        self.checkInterval = checkInterval
    }
    /// Whether any limit is set.
    public var isEnabled: Bool { maxAgeHours > 0 || maxSizeGB > 0 }
}

/// `push`: `sideline push`, the field encoder that uploads to a server's ingest. Its ladder,
/// segment duration and audio are the config's own (the server's config must name the same
/// variants and segment_duration).
public struct PushSettings: Sendable, Equatable {
    /// `push.ratio`: the share of the measured upload throughput the next segments may use,
    /// video and audio of every rung together (a broadcaster's field app used 0.7).
    public var ratio = 0.7
    /// `push.min_bitrate`: the best rung's lowest video bit rate, however slow the link.
    public var minBitrate: BitRate = .kbps(100)
    /// `push.max_bitrate`: the most video bit rate all rungs may use together; nil (0 in the
    /// file): the ladder's own total (rungs never go above their configured rates).
    public var maxBitrate: BitRate?
    /// `push.backlog`: after a cut, `catch-up` (oldest first) or `live-first`.
    public var backlog: PushBacklog = .liveFirst
    /// `push.queue_dir`: where segments wait until the server has them; empty:
    /// `<data_dir>/push-queue/<stream>`.
    public var queueDirectory = ""
    public init() {}
}

/// `analyst`: what analysts may change (markers) with a token of their own, so the admin token
/// (which can end or remove a stream) never has to reach an analyst's iPad.
public struct AnalystSettings: Sendable, Equatable {
    /// `analyst.token`: the bearer token that adds and removes markers (the admin token does
    /// too). Empty: marking is off. The environment variable SIDELINE_ANALYST_TOKEN, when set,
    /// takes its place.
    public var token: String
    public init(token: String = "") {
        self.token = token
    }
}

public struct AdminSettings: Sendable, Equatable {
    /// `admin.token`: the bearer token every admin request must carry
    /// (`Authorization: Bearer <token>`). The environment variable SIDELINE_ADMIN_TOKEN, when
    /// set, takes its place, so the secret need not sit in a file.
    public var token: String
    /// `admin.drills`: allow the failure drills (fail a variant's encoder, stall the
    /// pipeline), for tests and rehearsals. Never on by default.
    public var drills: Bool
    public init(token: String = "", drills: Bool = false) {
        self.token = token
        self.drills = drills
    }
}

public struct StreamSettings: Sendable, Equatable {
    /// `stream.name`: the `{stream}` of every URL.
    public var name: String
    /// `stream.input`: a file path, or any URL or device libavformat opens.
    public var input: String
    /// `stream.loop`: start a file input again at its end, so it plays like a camera that never stops.
    public var loop: Bool
    /// `stream.input_timeout`: seconds to wait when opening a network input or device.
    public var inputTimeout: Double
    /// `stream.loss_timeout`: seconds without a packet after which a camera or feed counts as
    /// lost (the slate goes on air and Sideline reconnects).
    public var lossTimeout: Double = 1
    /// `stream.watchdog_timeout`: seconds without a finished segment after which the pipeline
    /// counts as stuck and is restarted; 0 turns the watchdog off.
    public var watchdogTimeout: Double = 5
    /// `stream.on_input_loss`: what the playlists carry while a camera or feed is lost.
    public var onInputLoss: InputLossPolicy = .slate
    /// `stream.on_variant_failure`: what fills a failed variant's slots.
    public var onVariantFailure: FailedVariantFill = .sibling
    /// `stream.on_late_segment`: what fills a slot whose segment is late (stall, restart).
    public var onLateSegment: LateSegmentFill = .standin
    /// `stream.late_grace`: seconds past its due time a slot waits for its real segment.
    public var lateGrace: Double = LateSegmentFill.defaultGrace
    /// `stream.title`, `stream.description`, `stream.keywords`: EXT-X-SESSION-DATA of the
    /// master playlist (empty: left out).
    public var title: String
    public var description: String
    public var keywords: String
    /// `stream.start_offset`: EXT-X-START TIME-OFFSET in seconds; negative counts back from
    /// the live edge. nil: left out (players choose).
    public var startOffset: Double?
    /// `stream.backups`: base URLs of servers that carry this stream under the same name (a
    /// `sideline mirror`, e.g. `http://10.0.0.3:8081`). The master lists every variant once more
    /// per backup, the same EXT-X-STREAM-INF with the backup's URI (RFC 8216 §6.3.3 redundant
    /// streams), so a player whose primary fails can move over.
    public var backups: [String] = []
    /// `stream.input_options`: libavformat/libavdevice options for opening the input, e.g.
    /// `rtsp_transport: tcp`, or `video_size`, `framerate`, `input_format` for a V4L2 device.
    public var inputOptions: [String: String]
    /// `stream.audio_input`: a separate sound source, such as an ALSA device (`alsa:hw:1,0`)
    /// next to a V4L2 camera. Empty: the sound of `input`, if it has any.
    public var audioInput: String = ""
    /// `stream.audio_input_options`: libavdevice options for it (`sample_rate`, `channels`).
    public var audioInputOptions: [String: String] = [:]
    /// The stream's frame rate and ladder: its own `video` section, or the top-level `video`.
    public var video: VideoSettings
    /// `ingest_token`: the secret a remote encoder sends (`Authorization: Bearer`) to push this
    /// stream to `/ingest/<name>/...`. A stream with one has no `input`: the server encodes
    /// nothing for it, it lists what is pushed. Empty: not a pushed stream.
    public var ingestToken: String = ""
    /// Whether a remote encoder pushes this stream (it has an `ingest_token`, no `input`).
    public var isPushed: Bool { !ingestToken.isEmpty }
    /// `viewer_token`: makes the stream private. Its playlists, segments, VOD, clips and page
    /// data need this token (or a URL made from it, or a signed URL). Empty: open to anyone
    /// who reaches the server, as on a trusted LAN.
    public var viewerToken: String = ""
    public init(name: String, input: String, loop: Bool, inputTimeout: Double, title: String = "", description: String = "", keywords: String = "", startOffset: Double? = nil,
                inputOptions: [String: String] = [:], video: VideoSettings) {
        self.inputOptions = inputOptions
        self.video = video
        self.name = name
        self.input = input
        self.loop = loop
        self.inputTimeout = inputTimeout
        self.title = title
        self.description = description
        self.keywords = keywords
        self.startOffset = startOffset
    }
}

public struct VideoSettings: Sendable, Equatable {
    /// `video.frame_rate`: the constant output frame rate of every variant.
    public var frameRate: Double
    /// `video.ladder`: the variants, best first.
    public var ladder: [Rung]
    /// Whether the stream's own `video` section names a ladder (the top-level `video.ladder`
    /// is the cameras' default, not counted): a pushed stream whose own config names none
    /// takes the one its encoder's master declares.
    public var ladderConfigured = false
    public init(frameRate: Double, ladder: [Rung]) {
        self.frameRate = frameRate
        self.ladder = ladder
    }
}

public struct AudioSettings: Sendable, Equatable {
    /// `audio.bitrate`: AAC-LC bit rate.
    public var bitrate: BitRate
    public var sampleRate: Int
    public var channels: Int
    public init(bitrate: BitRate, sampleRate: Int, channels: Int) {
        self.bitrate = bitrate
        self.sampleRate = sampleRate
        self.channels = channels
    }
}
