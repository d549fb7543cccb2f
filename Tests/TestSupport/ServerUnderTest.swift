import Hummingbird
import Logging
import ServiceLifecycle

/// A server a test runs on an ephemeral port of 127.0.0.1 (or ::1), stopped gracefully as
/// `sideline serve` stops. Cancelling the task that serves instead can trap in SwiftNIO when a
/// connection was accepted but not yet handed to the server ("Deinited NIOAsyncWriter without
/// calling finish()", swift-nio #2813): it stopped the unit phase of CI once (2026-11-27,
/// `ClientLimitsHTTPTests`, eight connections opened just before the end).
public struct ServerUnderTest: Sendable {
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Starts the application `make` builds, handing it the callback that reports the port it
    /// bound; returns once it listens, or throws why it stopped before (a port in use, say).
    public static func start<App: ApplicationProtocol>(_ make: (@escaping @Sendable (Int) async -> Void) -> App) async throws -> ServerUnderTest {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = make { continuation.yield($0) }
        var logger = Logger(label: "server-under-test")
        logger.logLevel = .critical
        let group = ServiceGroup(configuration: .init(services: [.init(service: app)], logger: logger))
        // The ports end with the server, so a server that never listens does not leave the
        // test waiting for a port.
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            if case .failure(let error) = await task.result { throw error }
            throw ServerDidNotStart()
        }
        return ServerUnderTest(port: port, group: group, task: task)
    }

    /// Stops it as a signal would: no new connections, those open finish, then it returns.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }

    /// Runs `body` with a server `make` builds, and stops it however `body` ends.
    public static func with<App: ApplicationProtocol, T>(_ make: (@escaping @Sendable (Int) async -> Void) -> App,
                                                         _ body: (Int) async throws -> T) async throws -> T {
        let server = try await start(make)
        do {
            let result = try await body(server.port)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }
}

/// The application ended without an error before it reported a port.
public struct ServerDidNotStart: Error, CustomStringConvertible {
    public var description: String { "the server under test stopped before it listened, without an error: did `make` pass the callback as onServerRunning?" }
}
