import ArgumentParser
import Foundation
import HLSOrigin
import HTTPTypes
import IngestServices
import OriginAccess
import OriginPolicy
import OriginRegistry
import OriginState
import PlayerSessions
import OriginAPI
import Logging
import MirrorServices
import SegmentStore
import ServiceLifecycle
import Synchronization
import SidelineConfig
import SidelineCore
import StreamServices
import UnixSignals
import WatchPage

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Encode an input into a live HLS stream and serve it over HTTP.",
        discussion: """
        With no options, plays Samples/sample.mp4 as a live camera (looped, at real time) with the \
        defaults of Config/sideline.yaml. Ctrl-C (SIGINT) ends the stream: the last segment is \
        written, EXT-X-ENDLIST closes every playlist, and the server exits. SIGTERM stops the server \
        without ending the stream, so a restart continues the same recording.
        """
    )

    @OptionGroup var options: StreamOptions
    @Option(help: "Address to listen on.")
    var host: String?
    @Option(help: "Port to listen on (0 picks a free one).")
    var port: Int?
    @Flag(help: "Encode a file as fast as possible instead of at real time (for tests and benchmarks).")
    var noRealtime = false

    func run() async throws {
        options.bootstrapLogging()
        try await reportingStartupErrors { try await serve(logger: Logger(label: "sideline")) }
    }

    private func serve(logger: Logger) async throws {
        // Signal handlers first, before the slow start-up work (calibration): a SIGHUP from
        // `systemctl reload` (or a SIGTERM) that came earlier would end the process. One that
        // comes during start-up waits in the sequence and is handled once the server runs.
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm, .sighup)
        logger.debug("signal handlers installed (SIGINT, SIGTERM, SIGHUP)")
        let settings = try options.resolve(host: host, port: port)
        // TLS: a missing, unreadable, expired or mismatched certificate or key stops the start
        // here, before anything is opened or written, with one line that names the file.
        let tls = try settings.server.tls.map { files in try startupError { try TLSIdentity(certificate: files.certificate, key: files.key) } }
        let metrics = PrometheusExport.bootstrap()
        // Every encoder starts at the effort this machine can carry (one message when less than configured).
        let allPlans = await EncodingCapacity.servePlans(settings, realtime: !noRealtime, logger: logger)
        // A stream removed by the operator stays removed (410), even if the config still names it.
        let removed = allPlans.filter(\.isRemoved)
        for plan in removed {
            logger.warning("stream was removed by the operator; it answers 410 and is not encoded. To record under this name again, delete \(plan.layout.streamDirectory)",
                           metadata: ["stream": "\(plan.stream.name)"])
        }
        let plans = allPlans.filter { plan in !removed.contains { $0.stream.name == plan.stream.name } }
        // A new stream's input is opened before anything is written, so one bad camera leaves
        // no trace and the server exits. A recorded stream is served first: its input is
        // opened (and retried while it fails) once the server answers.
        var opened: [String: OpenedPipeline] = [:]
        for plan in plans where !plan.hasRecording && !plan.stream.isPushed {
            opened[plan.stream.name] = try plan.openPipeline(logger: logger.forStream(plan.stream.name, of: settings))
        }
        let registry = StreamRegistry(offer: .init(deltaUpdates: settings.server.deltaUpdates, blockingReload: settings.server.blockingReload), angleSets: .init(settings),
                                      remoteAngles: settings.remoteAngleBoxes, setsServedElsewhere: Set(settings.angleSetsServedElsewhere.keys), setPathways: .of(settings))
        for plan in removed { plan.registerRemoved(in: registry) }
        let pipelineServices = try plans.filter { !$0.stream.isPushed }.map { plan in
            let streamLogger = logger.forStream(plan.stream.name, of: settings)
            if let pipeline = opened[plan.stream.name] {
                let (publisher, first) = try plan.makePublisher(for: pipeline, registry: registry, logger: streamLogger)
                return PipelineService(plan: plan, publisher: publisher, opened: (pipeline, first), logger: streamLogger)
            }
            let publisher = try plan.makePublisher(registry: registry, logger: streamLogger)
            return PipelineService(plan: plan, publisher: publisher, opened: nil, logger: streamLogger)
        }
        if !noRealtime { LoadShedding.start(for: pipelineServices, logger: logger) }
        // Streams a remote encoder pushes: no pipeline, the ingest route feeds their core.
        let pushedServices = try plans.filter(\.stream.isPushed).map { plan in
            let streamLogger = logger.forStream(plan.stream.name, of: settings)
            return PushedStreamService(stream: try PushedStream(plan: plan, registry: registry, logger: streamLogger))
        }
        let running: [(name: String, stream: any RunningStream)] = pipelineServices.map { ($0.plan.stream.name, $0) } + pushedServices.map { ($0.stream.name, $0) }

        let console = ConsoleStatus(streams: running.map { entry in (entry.name, { entry.stream.statistics }) }, registry: registry)
        let admission = AdmissionControl(limits: .init(settings.server))
        let adminToken = ProcessInfo.processInfo.environment["SIDELINE_ADMIN_TOKEN"] ?? settings.admin.token
        let operations = PipelineOperations(services: Dictionary(uniqueKeysWithValues: running.map { ($0.name, $0.stream) }),
                                            registry: registry, dataDirectory: settings.dataDirectory, logger: logger)
        let admin = adminToken.isEmpty ? nil : AdminRoutes(token: adminToken, drillsEnabled: settings.admin.drills, operations: operations)
        let analystToken = ProcessInfo.processInfo.environment["SIDELINE_ANALYST_TOKEN"] ?? settings.analyst.token
        ClipService.removeLeftovers(in: settings.dataDirectory)
        // CMCD in (sessions for /api/sessions and /metrics), CMSD out, on every stream's answers.
        let diagnostics = PlayerDiagnostics(book: PlayerSessionBook(clock: { Date().timeIntervalSince1970 }))
        let rules = AccessRules.from(settings)
        // Guessing slowed: 429 after a burst of refused credentials from one address, on every port.
        let throttling = CredentialThrottling(limits: .init(burst: settings.access.failedCredentialsBurst, refillSeconds: settings.access.failedCredentialsInterval))
        // Off on a trusted LAN (no stream has a viewer_token): no check on any request.
        let access = rules.isEnabled ? ViewerAccess(rules: rules) : nil
        // The venue's other boxes, which a set's markers and clips reach for the angles they serve.
        let boxClient = settings.boxes.isEmpty ? nil : VenueBoxClient()
        let boxes = boxClient.map { VenueBoxes(calls: $0, bases: settings.remoteAngleBoxes) }
        let policy = StatusPolicy(serving: plans.map(\.stream))
        let routes: [OriginServer.Routes] = [
            { admin?.add(to: $0) },
            { MarkerRoutes(registry: registry, book: MarkerBook(registry: registry, dataDirectory: settings.dataDirectory),
                           analystToken: analystToken, adminToken: adminToken, boxes: boxes).add(to: $0) },
            { [clips = ClipRoutes(registry: registry, maker: ClipService(settings: settings.clips), dataDirectory: settings.dataDirectory, boxes: boxes)] in clips.add(to: $0) },
            { StreamsRoutes(registry: registry, dataDirectory: settings.dataDirectory, access: access, policy: policy).add(to: $0) },
            { WatchPage.add(to: $0) },
            { SessionsRoutes(diagnostics: diagnostics, adminToken: adminToken).add(to: $0) },
            { [ingest = IngestRoutes(registry: registry, receiver: PushedStreams(pushedServices.map(\.stream)), policy: policy)] in pushedServices.isEmpty ? () : ingest.add(to: $0) },
        ]
        let segments = SegmentCache(budget: settings.server.segmentCacheMegabytes << 20)
        let tlsPort = Mutex(settings.server.port)
        // The origin, on server.port (over TLS when configured) and, with plain_http: serve, on
        // the plain port too: the same routes, admission, access and diagnostics on both.
        let logHeaders = settings.server.logHeaders.compactMap { HTTPField.Name($0) }
        let origin = { @Sendable (port: Int, tls: TLSIdentity?, onRunning: @escaping @Sendable (Int) async -> Void) in
            OriginServer.makeApplication(
                registry: registry, host: settings.server.host, port: port, logger: logger, metrics: metrics, admission: admission,
                policy: policy, routes: routes,
                requestMetrics: settings.server.requestMetrics, segments: segments, fastPath: settings.server.fastPath, access: access,
                logHeaders: logHeaders, tls: tls, diagnostics: diagnostics, throttling: throttling, onServerRunning: onRunning)
        }
        let application = origin(settings.server.port, tls) { boundPort in
            tlsPort.withLock { $0 = boundPort }
            for plan in plans {
                // A private stream's plain URL answers 401: the operator is told how to get one that plays.
                console.announce(stream: plan.stream.name, url: PlaylistURL.master(host: settings.server.host, port: boundPort, stream: plan.stream.name, tls: tls != nil),
                                 note: rules.isPrivate(plan.stream.name) ? "private: that URL answers 401; players open the one 'sideline sign \(plan.stream.name)' prints, or the page's after its viewer token" : nil)
            }
        }
        let consoleService = ConsoleService(console: console)
        // server.plain_port: plain HTTP beside TLS, redirecting to it or serving the same answers.
        let plain: (any Service)? = settings.server.plainPort.map { port -> any Service in
            let announce: @Sendable (Int) async -> Void = { bound in logger.notice("plain HTTP on port \(bound) \(settings.server.plainHTTP == .redirect ? "redirects to TLS" : "serves in clear text")") }
            switch settings.server.plainHTTP {
            case .redirect:
                return OriginServer.makeRedirectApplication(publicName: OriginServer.publicName(configured: settings.server.publicName, tls: tls, host: settings.server.host),
                                                            host: settings.server.host, port: port, tlsPort: { tlsPort.withLock { $0 } }, admission: admission,
                                                            logger: logger, onServerRunning: announce)
            case .serve:
                return origin(port, nil, announce)
            }
        }
        var services: [any Service] = [application, consoleService]
        if let plain { services.append(plain) }
        services += pipelineServices as [any Service]
        services += pushedServices as [any Service]
        // The other box of a redundant pair: watched, for the steering manifests (issue 35).
        if let redundancy = settings.redundancy {
            services.append(PeerWatchService(peerBase: redundancy.peerBase, role: redundancy.role.rawValue, otherRole: redundancy.otherRole.rawValue,
                                             segmentDuration: settings.segmentDuration, registry: registry, logger: logger))
        }
        // The venue's other boxes: asked about the angles they serve, for this box's sets.
        if let boxClient {
            services.append(RemoteAngleService(boxes: settings.boxes.map { .init(base: $0.base, streams: $0.streams) }, calls: boxClient, registry: registry, credentials: .init(rules: rules, analystToken: analystToken),
                                               checks: .init(openSets: rules.openSets(of: settings), localStreams: Set(settings.streams.map(\.name)),
                                                             frameRates: settings.remoteAngleFrameRates), logger: logger))
        }
        // A service that returns ends the group, so retention runs only when it has a limit.
        if settings.retention.isEnabled {
            services.append(RetentionService(settings: settings.retention, dataDirectory: settings.dataDirectory, operations: operations, logger: logger))
        }
        let group = ServiceGroup(configuration: .init(services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }, logger: logger))
        // Ctrl-C ends the stream (EXT-X-ENDLIST); SIGTERM only stops the server.
        let signalTask = Task {
            for await signal in signals {
                // SIGHUP: read the TLS certificate and key again (renewed during a long event);
                // open connections keep theirs, new ones get the new one.
                if signal == .sighup {
                    if let tls { tls.reload(logger: logger) } else { logger.notice("SIGHUP: no server.tls to reload") }
                    continue
                }
                // New requests get 503 with Retry-After from now on; those in flight finish.
                // The pipelines stop first (their last segments are written), then the server.
                admission.beginDraining()
                for service in pipelineServices { service.endStreamOnStop = signal == .sigint }
                for service in pushedServices { service.endStreamOnStop = signal == .sigint }
                logger.notice("\(signal == .sigint ? "SIGINT: ending the stream" : "SIGTERM: stopping; the stream stays open for a restart")")
                await group.triggerGracefulShutdown()
                return
            }
        }
        try await group.run()
        await boxClient?.shutdown()
        signalTask.cancel()
        console.finish()
    }
}

extension Logger {
    /// With several streams, every log line of a stream's pipeline and recorder names it.
    func forStream(_ name: String, of settings: SidelineConfiguration) -> Logger {
        guard settings.streams.count > 1 else { return self }
        var logger = self
        logger[metadataKey: "stream"] = "\(name)"
        return logger
    }
}
