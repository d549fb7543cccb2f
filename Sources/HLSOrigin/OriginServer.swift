import Hummingbird
import Logging

/// Builds the Hummingbird application that serves a registry.
public enum OriginServer {
    public static func makeApplication(
        registry: StreamRegistry,
        host: String,
        port: Int,
        logger: Logger,
        onServerRunning: (@Sendable (Int) async -> Void)? = nil
    ) -> some ApplicationProtocol {
        // HEAD answers like GET (same status and headers, no body): players probe segments with it.
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.add(middleware: LogRequestsMiddleware(.info))
        OriginRoutes(registry: registry).add(to: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "Sideline"),
            onServerRunning: { channel in await onServerRunning?(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}
