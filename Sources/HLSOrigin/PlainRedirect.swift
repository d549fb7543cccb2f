import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import OriginConnections
import OriginPolicy

extension OriginServer {
    /// The plain-HTTP port beside a TLS one (`server.plain_port` with `plain_http: redirect`):
    /// every request is answered 308 with the same path and query on
    /// `https://<publicName>:tlsPort`, which players and browsers follow.
    ///
    /// The name is the configured one (`server.public_name`, or the certificate's), never the
    /// request's Host header: anyone on the venue's network could otherwise send a player to
    /// a host of their choosing by way of a cache or a link. The port has the TLS port's
    /// admission (`admission`): the same connection caps, per-client cap, idle and write
    /// timeouts, counted together with it.
    public static func makeRedirectApplication(publicName: String, host: String, port: Int, tlsPort: @escaping @Sendable () -> Int,
                                               admission: AdmissionControl, logger: Logger,
                                               onServerRunning: (@Sendable (Int) async -> Void)? = nil) -> some ApplicationProtocol {
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestIDMiddleware())
        router.get("**") { request, _ in
            Response(status: .permanentRedirect, headers: [.location: redirectLocation(publicName: publicName, tlsPort: tlsPort(), target: request.head.path),
                                                           .cacheControl: CachePolicy.noStore.headerValue, .contentLength: "0"])
        }
        let clients = admission.clients
        return Application(
            router: router,
            server: HTTPServerBuilder { responder in
                OriginHTTP1Channel(responder: responder, clients: clients, idleTimeout: admission.limits.idleTimeout, fastPath: nil)
            },
            configuration: .init(address: .hostname(host, port: port), serverName: "Sideline", availableConnectionsDelegate: admission.connectionCounter),
            onServerRunning: { channel in await onServerRunning?(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }

    /// Where the plain port sends `target` (path and query as sent): the same target on the
    /// TLS port under the public name. A target that is not origin-form (`*`, an absolute
    /// URL a client sends to steer the redirect) goes to `/`.
    static func redirectLocation(publicName: String, tlsPort: Int, target: String?) -> String {
        let path = target.flatMap { $0.hasPrefix("/") && !$0.hasPrefix("//") ? $0 : nil } ?? "/"
        return "https://\(publicName)\(tlsPort == 443 ? "" : ":\(tlsPort)")\(path)"
    }

    /// The name the plain port redirects to: `server.public_name`, else the name the TLS
    /// certificate is for, else the address the server listens on when that is one address
    /// (not 0.0.0.0 or ::), else localhost.
    public static func publicName(configured: String?, tls: TLSIdentity?, host: String) -> String {
        if let configured { return configured }
        if let name = tls?.certificateName { return name }
        if host == "0.0.0.0" || host == "::" || host.isEmpty { return "localhost" }
        return host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}
