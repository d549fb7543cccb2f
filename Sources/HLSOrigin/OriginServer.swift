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
        let router = Router()
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
