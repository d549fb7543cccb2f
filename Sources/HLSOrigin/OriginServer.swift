import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import HTTPTypes
import HummingbirdTLS
import OriginConnections
import OriginPolicy
import OriginRegistry
import OriginState

/// What `GET /metrics` serves: the Prometheus text format, rendered by whoever owns the
/// metrics backend (the executable), so this module does not depend on one.
public struct MetricsExposition: Sendable {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    public let render: @Sendable () -> [UInt8]
    public init(render: @escaping @Sendable () -> [UInt8]) { self.render = render }
}

/// Builds the Hummingbird application that serves a registry.
public enum OriginServer {
    /// Routes another module adds to the origin's router: the analysts' and operators' APIs
    /// (OriginAPI) and the page (WatchPage). They are added before the origin's own, whose
    /// catch-all answers every path nobody else claims.
    public typealias Routes = @Sendable (Router<BasicRequestContext>) -> Void

    public static func makeApplication(
        registry: StreamRegistry,
        host: String,
        port: Int,
        logger: Logger,
        metrics: MetricsExposition? = nil,
        admission: AdmissionControl = AdmissionControl(),
        policy: StatusPolicy = StatusPolicy(),
        routes: [Routes] = [],
        requestMetrics: Bool = false,
        segments: SegmentCache = SegmentCache(budget: 128 << 20),
        fastPath: Bool = true,
        access: ViewerAccess? = nil,
        logHeaders: [HTTPField.Name] = [],
        tls: TLSIdentity? = nil,
        diagnostics: PlayerDiagnostics? = nil,
        throttling: CredentialThrottling? = nil,
        onServerRunning: (@Sendable (Int) async -> Void)? = nil
    ) -> some ApplicationProtocol {
        // HEAD answers like GET (same status and headers, no body): players probe segments with it.
        let router = Router(options: .autoGenerateHeadEndpoints)
        // One line per request at debug level: at full load an info-level line per request
        // cost measurable throughput (Docs/benchmarks.md, "Request log"); `--log-level debug`
        // brings them back when diagnosing.
        // Outermost, so the log line, every refusal and every error carry the request's ID.
        // Outside that: whose cache may keep the answer (a private stream's are the viewer's alone).
        router.add(middleware: RequestAudienceMiddleware())
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: RequestLogMiddleware(level: .debug, headers: logHeaders))
        router.add(middleware: AdmissionMiddleware(control: admission, policy: policy))
        if let metrics {
            // Request counts and durations per route, through swift-metrics: off by default,
            // because at full load it costs measurable server CPU per request (the figures are in
            // Docs/operations.md, "Metrics"); `server.request_metrics: true` turns it on.
            if requestMetrics { router.add(middleware: MetricsMiddleware()) }
            router.get("/metrics") { _, _ in
                let headers: HTTPFields = [.contentType: MetricsExposition.contentType, .cacheControl: CachePolicy.uncached.headerValue]
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.render())))
            }
        }
        // The gate's verdict on another URL, for an edge cache in front (nginx's auth_request,
        // Config/nginx/sideline-edge-private.conf): 204, or the refusal the URL itself would get.
        router.get("/api/access") { request, _ in ViewerAccess.edgeQuestion(request, access: access) }
        for add in routes { add(router) }
        OriginRoutes(registry: registry, policy: policy, segments: segments, diagnostics: diagnostics, admission: admission).add(to: router)
        let clients = admission.clients
        let idle = admission.limits.idleTimeout
        let serverName = "Sideline"
        // The fast path answers from memory on the event loop (OriginWire). Per-route
        // request metrics are counted by a router middleware, so with them on every request
        // goes through the router.
        let fast = fastPath && !requestMetrics
            ? OriginFastResponder(registry: registry, policy: policy, segments: segments, admission: admission, serverName: serverName, logger: logger,
                                  access: access, logHeaders: logHeaders, diagnostics: diagnostics)
            : nil
        return Application(
            router: router,
            server: HTTPServerBuilder { responder in
                // Before the router, on every request: the path normalised, internal headers a
                // client sent dropped, and no route sees a private stream's request the gate refused.
                let channel = OriginHTTP1Channel(responder: ViewerAccess.guarding(responder, access: access, logger: logger, proxies: admission.limits.trustedProxies, clients: clients),
                                                 clients: clients, idleTimeout: idle,
                                                 fastPath: fast, secure: tls != nil, throttling: throttling)
                // Hummingbird's TLS channel; the identity's handshake callback serves the
                // certificate current at each handshake (reloaded on SIGHUP).
                guard let tls else { return channel }
                return try TLSChannel(channel, tlsConfiguration: tls.serverConfiguration)
            },
            configuration: .init(address: .hostname(host, port: port), serverName: serverName, availableConnectionsDelegate: admission.connectionCounter),
            onServerRunning: { channel in await onServerRunning?(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}
