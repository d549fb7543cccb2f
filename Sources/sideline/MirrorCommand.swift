import ArgumentParser
import Foundation
import HLSOrigin
import OriginAPI
import Logging
import MirrorServices
import OriginAccess
import OriginRegistry
import OriginState
import SegmentStore
import ServiceLifecycle
import SidelineConfig
import SidelineCore
import StreamServices
import UnixSignals
import WatchPage

struct MirrorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mirror",
        abstract: "Follow an upstream Sideline: record its stream here and serve it, also while the upstream is away.",
        discussion: """
        Downloads every segment of every variant (or those of --variants) as soon as the upstream \
        lists it, checks it, records it in the same layout under the data directory and serves it \
        with the same origin. While the upstream answers and advances, the mirror's playlists are \
        EVENT and follow it; once it is unreachable or stale for more than 1.5 target durations they \
        become VOD (EXT-X-ENDLIST) over everything held, so players scrub the whole match offline; \
        when it returns, the mirror catches up and is EVENT again. A restart downloads nothing twice.

        Example: sideline mirror http://10.0.0.2:8080/live/main/master.m3u8 --port 8081
        """
    )

    @Argument(help: "The upstream's master playlist URL (http://host:port/live/{stream}/master.m3u8), or an angle set's (/live/{set}/...): every angle is mirrored.")
    var upstream: String
    @Option(name: .customLong("ca-file"), help: "The venue CA (PEM) an https server's certificate is verified against, besides the system's roots.")
    var caFile: String?
    @Option(help: "Config file (YAML): the server section (tls too), data_dir, and for a private stream the access section and the streams' viewer_token (the origin's config serves). Other stream, video and audio keys are not used.")
    var config: String?
    @Option(name: .customLong("data-dir"), help: "Where the mirrored stream is recorded.")
    var dataDirectory: String?
    @Option(help: "The local stream name (default: the upstream's).")
    var stream: String?
    @Option(help: "Variants to follow, comma-separated (default: all).")
    var variants: String?
    @Option(name: .customLong("header"), help: "A header sent with every upstream request, as 'Name: value' (repeatable).")
    var headers: [String] = []
    @Option(name: .customLong("record-header"), help: "A response header to record for every upstream answer, one JSON line per answer in <data dir>/<stream>/upstream-responses.jsonl (repeatable).")
    var recordedHeaders: [String] = []
    @Option(help: "Address to listen on.")
    var host: String?
    @Option(help: "Port to listen on (0 picks a free one).")
    var port: Int?
    @Flag(help: "Serve a private upstream (reached with a credential) to anyone, without the config's access rules.")
    var serveOpenly = false
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: LogLevel = .info

    func run() async throws {
        StreamOptions.bootstrapLogging(level: logLevel)
        try await reportingStartupErrors { try await mirror(logger: Logger(label: "sideline.mirror")) }
    }

    private func mirror(logger: Logger) async throws {
        let upstream = try MirrorUpstream(url: self.upstream, stream: stream, headers: headers, isValidName: StoreNames.isUsable)
        let (url, name) = (upstream.master, upstream.stream)
        var settings = try SidelineConfiguration.forCommand(config)
        // A private upstream is served to viewers with a credential only (the config's access
        // rules), or to anyone with --serve-openly; the TLS of server.tls, as serve's.
        let rules = try MirrorAccess.rules(upstreamIsPrivate: upstream.isPrivate, stream: name, rules: AccessRules.from(settings), serveOpenly: serveOpenly)
        let access = rules.map { ViewerAccess(rules: $0) }
        let identity = try settings.server.tls.map { files in try startupError { try TLSIdentity(certificate: files.certificate, key: files.key) } }
        if let host { settings.server.host = host }
        if let port {
            guard (0...65535).contains(port) else { throw SidelineStartupError(message: "--port \(port) is not a port from 0 to 65535") }
            settings.server.port = port
        }
        if let dataDirectory { settings.dataDirectory = dataDirectory }
        let chosen = variants.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        let layout = StreamLayout(dataDirectory: settings.dataDirectory, stream: name)
        try MirrorDisk.prepare(layout)
        let tls = try caFile.map { file in try startupError { try TLSIdentity.clientConfiguration(trusting: file) } }
        let client = try UpstreamClient(headers: upstream.headers, recordedHeaders: recordedHeaders, responseLogPath: "\(layout.streamDirectory)/\(StoreNames.upstreamResponses)", tls: tls)
        // An angle set's master: every angle mirrored as a stream, and the set served beside them.
        let set = await MirrorSet.discover(master: url, name: name, fetch: client, dataDirectory: settings.dataDirectory, isValidName: StoreNames.isUsable)
        let angles = set?.angles ?? [name]
        for angle in angles { try MirrorDisk.prepare(StreamLayout(dataDirectory: settings.dataDirectory, stream: angle)) }

        let metrics = PrometheusExport.bootstrap()
        let registry = StreamRegistry(offer: .init(deltaUpdates: settings.server.deltaUpdates, blockingReload: settings.server.blockingReload),
                                      angleSets: set.map { [$0.angleSet(segmentDuration: settings.segmentDuration)] } ?? [])
        let admission = AdmissionControl(limits: .init(settings.server, writeTimeout: false))
        let listenHost = settings.server.host
        let application = OriginServer.makeApplication(
            registry: registry, host: settings.server.host, port: settings.server.port, logger: logger, metrics: metrics,
            admission: admission,
            routes: [
                // Clips of what the mirror holds work offline too; markers come from the upstream's playlists.
                { [dataDirectory = settings.dataDirectory] in ClipRoutes(registry: registry, maker: ClipService(), dataDirectory: dataDirectory).add(to: $0) },
                { [dataDirectory = settings.dataDirectory] in StreamsRoutes(registry: registry, dataDirectory: dataDirectory, access: access).add(to: $0) },
                { WatchPage.add(to: $0) },
            ],
            requestMetrics: settings.server.requestMetrics, segments: SegmentCache(budget: settings.server.segmentCacheMegabytes << 20),
            fastPath: settings.server.fastPath, access: access, tls: identity,
            throttling: CredentialThrottling(limits: .init(burst: settings.access.failedCredentialsBurst, refillSeconds: settings.access.failedCredentialsInterval))
        ) { boundPort in
            let local = PlaylistURL.master(host: listenHost, port: boundPort, stream: name, tls: identity != nil)
            let note = rules == nil ? (upstream.isPrivate ? "Served to anyone (--serve-openly).\n" : "") : "Private: players need a credential of the origin's ('sideline sign \(name)').\n"
            FileHandle.standardError.write(Data("Sideline is mirroring \(upstream.shown) as stream '\(name)'. Open: \(local)\n\(note)".utf8))
        }
        let services = angles.map { angle in
            MirrorService(session: MirrorService.session(upstream: set?.master(of: angle, from: url) ?? url, chosen: chosen, client: client,
                                                         destination: MirrorDisk(layout: StreamLayout(dataDirectory: settings.dataDirectory, stream: angle), registry: registry), logger: logger),
                          logger: logger)
        }
        let group = ServiceGroup(configuration: .init(services: [.init(service: application)] + services.map { .init(service: $0) }, logger: logger))
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm, .sighup)
        let signalTask = Task {
            for await signal in signals {
                if signal == .sighup {
                    identity?.reload(logger: logger)
                    continue
                }
                admission.beginDraining()
                logger.notice("\(signal == .sigint ? "SIGINT" : "SIGTERM"): stopping the mirror; what it holds stays for the next start")
                await group.triggerGracefulShutdown()
                return
            }
        }
        do {
            try await group.run()
        } catch {
            signalTask.cancel()
            await client.shutdown()
            throw error
        }
        signalTask.cancel()
        await client.shutdown()
    }
}
