// swift-tools-version:6.0
import PackageDescription

// The targets stand in four floors, each importing only the floors above it in this file:
// pure cores, services that do IO, the executable, and test support with the tests.
// HouseRulesTests (Tests/HouseRulesTests) reads this file and fails when a pure core reaches
// down, a target imports what it does not declare (or declares what it never imports), or a
// doc table drifts from it. It reads the groups by their `let` names and each target by its
// `name:` and `dependencies:`, so keep one target call per entry and the dependency lists
// as plain strings and `.product(name:package:)`.

// MARK: - Pure cores
// Plain values and an injected clock: no NIO, no Hummingbird, no HTTP client, no FFmpeg, no
// FoundationNetworking, Dispatch or Glibc (HouseRules.pureProducts and pureToolchainModules
// are the allow-lists), and
// no dependency outside this group except pure packages (Yams, structured headers) and the
// system's libcrypto for HMAC. Their tests build in seconds and run in the unit phase.
let pureCores: [Target] = [
    // Playlist model, rendering, parsing. No clock reads.
    .target(name: "HLSPlaylist"),
    // MPEG-TS packets, restamping, PAT/PMT order, checks of a received segment.
    .target(name: "MPEGTS"),
    // Small and shared: the one Backoff, the monotonic clock, the duration helper, the fill
    // policies that config and publishing share.
    .target(name: "SidelineCore"),
    // The config model, strict YAML decoding and validation whose errors name the key.
    .target(
        name: "SidelineConfig",
        dependencies: ["SidelineCore", .product(name: "Yams", package: "Yams")]
    ),
    // How hard each rung's encoder works. The effort steps (x264 presets and the options
    // behind them), the rule that steps a rung down before it drops frames and up when there
    // is room, and what the configured streams cost on this machine.
    .target(name: "EncoderEffort", dependencies: ["SidelineCore"]),
    // The media pipeline's decisions and values without FFmpeg: frame rates, the segment clock
    // and the frame-rate conformer, the feed policy and its queue, what an input string names,
    // Annex B, the clip cut rule, and the configuration, events and errors MediaPipeline speaks.
    .target(name: "PipelineCore", dependencies: ["EncoderEffort", "HLSPlaylist", "SidelineCore"]),
    // The live decisions (slots, fills, seams, master listing, watchdog, bandwidth) over plain
    // events and an injected clock. Writes through `PublishingSink`.
    .target(name: "StreamPublishing", dependencies: ["HLSPlaylist", "SidelineCore"]),
    // What a mirror lists, fetches and checks, and when it serves what it holds as VOD.
    .target(name: "StreamMirroring", dependencies: ["HLSPlaylist", "MPEGTS", "SidelineCore"]),
    // What `push` sends next, at which bit rate, and what it does when an upload fails; what
    // the ingest makes of the segments and playlists a remote encoder uploads.
    .target(name: "StreamPushing", dependencies: ["HLSPlaylist", "IngestPolicy", "MPEGTS", "OriginPolicy", "SidelineCore"]),
    // Request policy: paths, directives, ranges, header tokens, query parameters, marker
    // checks, the status table, and the one refusal type every route answers with.
    .target(name: "OriginPolicy", dependencies: ["HLSPlaylist", "SidelineCore"]),
    // What a remote encoder may push: the names it may upload, who may push, what a pushed
    // master may list and which ladder it gives, the bounds on what uploads make the server
    // hold, and the file of a multipart upload.
    .target(name: "IngestPolicy", dependencies: ["HLSPlaylist", "OriginPolicy", "SidelineCore"]),
    // Who may watch which stream. The credentials a URL carries (viewer and signed,
    // HMAC-SHA256) and the gate every request to a stream's footage passes (401/403).
    // HMAC-SHA256 from the system's OpenSSL libcrypto (pkg-config): one pure function, and no
    // BoringSSL of its own to compile (swift-crypto made a clean build 47 s longer, 2026-12-07).
    .systemLibrary(name: "SidelineLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    .target(name: "OriginAccess", dependencies: ["OriginPolicy", "SidelineLibCrypto"]),
    // What the origin publishes, as values with one way in (`OriginState.apply`): streams,
    // variants, segments, gaps, masters, markers, metadata, status, the angle sets.
    .target(name: "OriginState", dependencies: ["HLSPlaylist", "OriginPolicy"]),
    // What players' CMCD says (CTA-5004, RFC 8941 fields), and the bounded book of their
    // sessions: who is stalling, on which variant, since when.
    .target(name: "PlayerSessions", dependencies: ["OriginPolicy", .product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers")]),
]

// MARK: - Services that do IO
// Threads, disks, sockets and FFmpeg, carrying out the pure cores' decisions. Libraries, not
// part of the executable, so tests can drive them.
let services: [Target] = [
    // FFmpeg's C libraries through pkg-config, plus a header-only shim for the macros Swift cannot import.
    .systemLibrary(
        name: "CFFmpeg",
        pkgConfig: "libavformat libavcodec libavutil libswscale libswresample libavdevice",
        providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev", "libavdevice-dev"])]
    ),
    // zlib, for a gzip member whose deflated prefix is kept from one playlist version to the
    // next (compress-nio, which the rest uses, compresses whole buffers only).
    .systemLibrary(name: "SidelineZlib", providers: [.apt(["zlib1g-dev"])]),
    // The only module that holds FFmpeg pointers, carrying out PipelineCore's decisions on
    // threads of its own (and re-exporting PipelineCore, whose values its API speaks).
    .target(
        name: "MediaPipeline",
        dependencies: ["CFFmpeg", "EncoderEffort", "HLSPlaylist", "MPEGTS", "PipelineCore", "SidelineCore", .product(name: "Logging", package: "swift-log")]
    ),
    // The recording on disk.
    .target(
        name: "SegmentStore",
        dependencies: ["HLSPlaylist", "SidelineCore", .product(name: "Logging", package: "swift-log")]
    ),
    // The published state held for request handlers: OriginState under one lock, what was
    // rendered of it (playlists as ready-to-send bytes, plain and gzip), and the requests
    // held by blocking reload.
    .target(
        name: "OriginRegistry",
        dependencies: [
            "SidelineZlib", "HLSPlaylist", "OriginPolicy", "OriginState", "SidelineCore",
            .product(name: "CompressNIO", package: "compress-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]
    ),
    // The origin's connections: how many are open, in all and per client (the one place that
    // frees one at a cap), idle and draining connections, admission of requests, the client a
    // request comes from behind trusted edges, and requests held per client. Split from
    // HLSOrigin when that passed the 2,600-line rule (issue 44).
    .target(
        name: "OriginConnections",
        dependencies: [
            "OriginPolicy", "SidelineCore",
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]
    ),
    // Delivery over HTTP, holding nothing but connections: the channel and its fast path, TLS,
    // the admission middleware, the credential throttle, the segment cache, the /live/ and
    // /vod/ routes, and the one place a refusal becomes HTTP.
    .target(
        name: "HLSOrigin",
        dependencies: [
            "HLSPlaylist", "OriginAccess", "OriginConnections", "OriginPolicy", "OriginRegistry", "OriginState", "PlayerSessions", "SidelineCore",
            .product(name: "Hummingbird", package: "hummingbird"),
            // Counts of access refusals for /metrics.
            .product(name: "Metrics", package: "swift-metrics"),
            // TLS: Hummingbird's TLS channel around the origin's, and the identity it serves.
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            // Reads a segment into one buffer for the segment cache.
            .product(name: "_NIOFileSystem", package: "swift-nio"),
            // The HTTP/1.1 channel with the fast path (OriginHTTP1Channel).
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]
    ),
    // The analysts' and operators' APIs over the registry: streams, markers, clips, admin.
    .target(
        name: "OriginAPI",
        dependencies: [
            "HLSOrigin", "OriginRegistry", "OriginState", "HLSPlaylist", "OriginAccess", "OriginPolicy", "PlayerSessions", "SegmentStore",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "_NIOFileSystem", package: "swift-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]
    ),
    // The page at `/`: real .html, .css and .js files, built into the binary, served with ETag.
    .target(
        name: "WatchPage",
        dependencies: [
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
        ],
        resources: [.embedInCode("Resources/page.html"), .embedInCode("Resources/page.css"), .embedInCode("Resources/page.js"), .embedInCode("Resources/page-sync.js"), .embedInCode("Resources/page-state.js"), .embedInCode("Resources/page-angles.js"), .embedInCode("Resources/pattern-clock.js")]
    ),
    // Runs each configured camera: its pipeline under the supervisor, the publishing core's
    // decisions carried out onto disk and into the origin's registry, the stand-ins, the
    // metrics, and what an operator asks for (drills, end, removal, retention).
    .target(
        name: "StreamServices",
        dependencies: [
            "EncoderEffort", "HLSOrigin", "IngestPolicy", "OriginRegistry", "OriginState", "HLSPlaylist", "MediaPipeline", "MPEGTS", "OriginAccess", "OriginAPI", "OriginPolicy", "SegmentStore", "SidelineConfig", "SidelineCore", "StreamPublishing",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            // The clip remuxer runs on a thread pool of its own (NIOThreadPool).
            .product(name: "NIOPosix", package: "swift-nio"),
            // A set clip's ZIP of one MP4 per angle (ClipArchive).
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        ]
    ),
    // Runs each pushed stream: a remote encoder's uploads checked, carried onto disk and into
    // the same publisher a camera's pipeline feeds (StreamServices), and the ingest routes
    // beside them. Split from StreamServices when that passed the 2,600-line rule (issue 44).
    .target(
        name: "IngestServices",
        dependencies: [
            "HLSOrigin", "HLSPlaylist", "IngestPolicy", "MediaPipeline", "MPEGTS", "OriginPolicy", "OriginRegistry", "OriginState", "SegmentStore", "SidelineConfig", "SidelineCore",
            "StreamPublishing", "StreamPushing", "StreamServices",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            // Uploads are checked and written on a thread per pushed stream (IngestLoad.lane).
            .product(name: "NIOPosix", package: "swift-nio"),
            // The ingest routes (IngestRoutes), beside the pushed streams they feed.
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]
    ),
    // Connects a mirror's decisions (StreamMirroring) to the world: the upstream over HTTP,
    // the recording on disk, the origin's registry, and the log.
    .target(
        name: "MirrorServices",
        dependencies: [
            "OriginRegistry", "OriginState", "HLSPlaylist", "SegmentStore", "SidelineCore", "StreamMirroring",
            // A private stream's mirror checks viewers with the origin's rules.
            "OriginAccess", "OriginPolicy",
            // The way to the venue's other boxes its set routes call (`VenueBoxClient`).
            "OriginAPI",
            .product(name: "_NIOFileSystem", package: "swift-nio"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            // FoundationNetworking's URLSession crashes in libdispatch when a server dies
            // under an open connection (swift-corelibs-foundation#4791).
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            // The bound on a compressed answer's decompressed size.
            .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            // The venue CA a server's certificate is verified against.
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            // The mirror's file writes run on NIO's blocking-I/O thread pool.
            .product(name: "NIOPosix", package: "swift-nio"),
        ]
    ),
    // `sideline push`: a pipeline's segments into the queue on disk and up to a server's
    // ingest, carrying out StreamPushing's decisions (order, retries, bit rates, rungs).
    .target(
        name: "PushServices",
        dependencies: [
            "HLSPlaylist", "MediaPipeline", "SegmentStore", "SidelineConfig", "SidelineCore", "StreamPushing",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            // The venue CA a server's certificate is verified against.
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            // The queue's file work runs on NIO's blocking-I/O thread pool.
            .product(name: "NIOPosix", package: "swift-nio"),
        ]
    ),
]

// MARK: - The executable
// Wiring only: parses arguments, builds the objects, owns signals, prints. No decisions, and
// under 1,000 lines in all (HouseRulesTests counts them).
let executable: [Target] = [
    .executableTarget(
        name: "sideline",
        dependencies: [
            "HLSOrigin", "OriginRegistry", "OriginState", "HLSPlaylist", "MediaPipeline", "MirrorServices", "OriginAccess", "OriginAPI", "OriginPolicy", "PlayerSessions", "PushServices",
            "SegmentStore", "SidelineConfig", "SidelineCore", "StreamPushing", "StreamServices", "IngestServices", "WatchPage",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            // The admin client speaks HTTP through AsyncHTTPClient too (see MirrorServices), and
            // reads its answer's status, headers and body in NIO's types.
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]
    ),
]

// MARK: - Test support
// Shipped once and used by the tests only.
let testSupport: [Target] = [
    // The manual clock every test that moves time uses, and the playlists the origin's tests serve.
    .target(name: "SidelineTesting", dependencies: ["HLSPlaylist"]),
    // The end-to-end and pipeline tests' helpers: running programs, ffprobe, the built server.
    .target(
        name: "TestSupport",
        dependencies: [
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            // ServerUnderTest: an application run and stopped as `sideline serve` runs it.
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        path: "Tests/TestSupport"
    ),
]

// MARK: - Tests
let tests: [Target] = [
    // The pure cores' tests (unit phase).
    .testTarget(name: "HLSPlaylistTests", dependencies: ["HLSPlaylist", "SidelineTesting"], resources: [.copy("Golden")]),
    .testTarget(name: "MPEGTSTests", dependencies: ["MPEGTS"]),
    .testTarget(name: "SidelineCoreTests", dependencies: ["SidelineCore"]),
    .testTarget(name: "SidelineConfigTests", dependencies: ["SidelineConfig", "SidelineCore"]),
    .testTarget(name: "EncoderEffortTests", dependencies: ["EncoderEffort", "SidelineCore"]),
    .testTarget(name: "PipelineCoreTests", dependencies: ["PipelineCore"]),
    .testTarget(name: "StreamPublishingTests", dependencies: ["StreamPublishing", "HLSPlaylist", "SidelineCore", "SidelineTesting"]),
    .testTarget(name: "StreamMirroringTests", dependencies: ["StreamMirroring", "HLSPlaylist", "SidelineCore", "SidelineTesting"]),
    .testTarget(name: "StreamPushingTests", dependencies: ["StreamPushing", "HLSPlaylist", "IngestPolicy", "MPEGTS", "OriginPolicy", "SidelineCore", "SidelineTesting"]),
    .testTarget(name: "OriginPolicyTests", dependencies: ["OriginPolicy", "HLSPlaylist", "SidelineCore"]),
    .testTarget(name: "IngestPolicyTests", dependencies: ["IngestPolicy", "HLSPlaylist", "OriginPolicy"]),
    .testTarget(name: "OriginStateTests", dependencies: ["OriginState", "HLSPlaylist", "OriginPolicy", "SidelineTesting"]),
    .testTarget(
        name: "OriginRegistryTests",
        dependencies: [
            "OriginRegistry", "OriginState", "OriginPolicy", "HLSPlaylist", "SidelineTesting",
            .product(name: "CompressNIO", package: "compress-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]
    ),
    .testTarget(name: "OriginAccessTests", dependencies: ["OriginAccess", "OriginPolicy"]),
    .testTarget(name: "PlayerSessionsTests", dependencies: ["PlayerSessions", "SidelineTesting"]),
    // The fuzz targets (compiled into libFuzzer harnesses by scripts/fuzz/run.sh) and the
    // replay of their seed corpora.
    .testTarget(name: "FuzzCorpusTests", dependencies: ["HLSPlaylist", "IngestPolicy", "MPEGTS", "OriginAccess", "OriginPolicy", "PlayerSessions", "SidelineCore", "StreamMirroring", "StreamPushing"]),
    // The services' tests: a temporary directory, a real server on 127.0.0.1, real FFmpeg
    // (MediaPipelineTests, the pipeline phase).
    .testTarget(
        name: "MediaPipelineTests",
        dependencies: ["MediaPipeline", "CFFmpeg", "EncoderEffort", "HLSPlaylist", "MPEGTS", "SidelineCore", "TestSupport", .product(name: "Logging", package: "swift-log")]
    ),
    .testTarget(name: "SegmentStoreTests", dependencies: ["SegmentStore", "HLSPlaylist", "SidelineCore", .product(name: "Logging", package: "swift-log")]),
    .testTarget(
        name: "OriginConnectionsTests",
        dependencies: ["OriginConnections", "OriginPolicy", "SidelineCore", .product(name: "NIOCore", package: "swift-nio")]
    ),
    .testTarget(
        name: "HLSOriginTests",
        dependencies: [
            "HLSOrigin", "OriginRegistry", "OriginState", "HLSPlaylist", "OriginAccess", "OriginPolicy", "SidelineCore", "SidelineTesting", "TestSupport",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "CompressNIO", package: "compress-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        ]
    ),
    .testTarget(
        name: "OriginAPITests",
        dependencies: [
            "OriginAPI", "HLSOrigin", "OriginRegistry", "OriginState", "HLSPlaylist", "OriginAccess", "OriginPolicy", "PlayerSessions", "SegmentStore", "SidelineTesting",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            // `Data(buffer:)` for the JSON bodies.
            .product(name: "NIOFoundationCompat", package: "swift-nio"),
        ]
    ),
    .testTarget(
        name: "WatchPageTests",
        dependencies: [
            "WatchPage",
            // Command.run: PageSyncTests runs page-sync.js in headless Chromium.
            "TestSupport",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "NIOFoundationCompat", package: "swift-nio"),
        ]
    ),
    .testTarget(
        name: "MirrorServicesTests",
        dependencies: [
            "MirrorServices", "HLSOrigin", "OriginRegistry", "OriginState", "HLSPlaylist", "OriginAccess", "SegmentStore", "SidelineCore", "SidelineTesting", "StreamMirroring", "TestSupport",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
    .testTarget(
        name: "StreamServicesTests",
        dependencies: [
            "StreamServices", "EncoderEffort", "HLSOrigin", "OriginAccess", "OriginRegistry", "OriginState", "HLSPlaylist", "OriginPolicy", "PipelineCore", "SegmentStore", "SidelineConfig", "SidelineCore",
            "StreamPublishing",
            .product(name: "Logging", package: "swift-log"),
            // SetClipZipTests: the set clip route on a real server, its ZIP opened, its MP4s probed.
            "OriginAPI", "TestSupport",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        ]
    ),
    // The ingest on a real server (ephemeral port): uploads, bounds, a declared ladder, a
    // segment written once.
    .testTarget(
        name: "IngestServicesTests",
        dependencies: [
            "IngestServices", "StreamServices", "HLSOrigin", "HLSPlaylist", "IngestPolicy", "MPEGTS", "OriginPolicy", "OriginRegistry", "OriginState", "SegmentStore",
            "SidelineConfig", "SidelineCore", "TestSupport",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
        ]
    ),
    .testTarget(name: "PushServicesTests", dependencies: ["PushServices", "HLSPlaylist", "MediaPipeline", "SidelineCore", "StreamPushing", .product(name: "Logging", package: "swift-log")]),
    // The house's rules: this manifest's layers and dependencies against the imports, the doc
    // tables against this manifest, the executable's size, what git tracks. Reads files only.
    .testTarget(name: "HouseRulesTests"),
    // The built binary against real players, one at a time (the last phase).
    .testTarget(name: "EndToEndTests", dependencies: ["sideline", "HLSPlaylist", "PipelineCore", "SidelineTesting", "TestSupport"]),
]

let package = Package(
    name: "Sideline",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "sideline", targets: ["sideline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // RFC 8941 structured fields: the players' CMCD (PlayerSessions) and the origin's CMSD.
        .package(url: "https://github.com/apple/swift-http-structured-headers", from: "1.7.0"),
        // TLS for the origin (through Hummingbird's TLS channel) and the certificate checks.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The ZIP of a set clip (one MP4 per angle) and `sideline export --set --zip`.
        .package(url: "https://github.com/weichsel/ZIPFoundation", exact: "0.9.20"),
    ],
    targets: pureCores + services + executable + testSupport + tests,
    swiftLanguageModes: [.v6]
)

// Every Swift target sees only the members of the modules its own file imports (SE-0444), so
// the compiler holds each file, and so each target, to what it imports; HouseRulesTests holds
// the imports to the dependencies above. A target named here is left out, and says why.
let withoutMemberImportVisibility: Set<String> = []
for target in package.targets where target.type != .system && !withoutMemberImportVisibility.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
