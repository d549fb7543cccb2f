import HLSOrigin
import Logging
import OriginRegistry
import OriginState
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The servers the tests run stop as `sideline serve` stops, gracefully. Cancelling the task
/// that serves a moment after connections arrive traps in SwiftNIO ("Deinited NIOAsyncWriter
/// without calling finish()", swift-nio #2813) and takes the whole test process down with it;
/// it stopped CI's unit phase once (2026-11-27). This opens a burst and stops at once, ten times.
@Suite struct ServerShutdownTests {
    @Test func aServerStoppedJustAfterABurstOfConnectionsStopsCleanly() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        for _ in 0..<10 {
            let server = try await ServerUnderTest.start { onRunning in
                OriginServer.makeApplication(registry: StreamRegistry(), host: "127.0.0.1", port: 0, logger: logger, onServerRunning: onRunning)
            }
            var opened: [Int32] = []
            for _ in 0..<64 { opened.append(try await LoopbackSockets.connect(port: server.port)) }
            await server.stop()
            for fd in opened { close(fd) }
        }
    }

    /// A server that cannot listen (its port taken) fails the test with the reason, at once,
    /// rather than leaving it waiting for a port that never comes.
    @Test func aServerThatCannotListenThrowsItsReason() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let first = try await ServerUnderTest.start { onRunning in
            OriginServer.makeApplication(registry: StreamRegistry(), host: "127.0.0.1", port: 0, logger: logger, onServerRunning: onRunning)
        }
        await #expect(throws: (any Error).self) {
            _ = try await ServerUnderTest.start { onRunning in
                OriginServer.makeApplication(registry: StreamRegistry(), host: "127.0.0.1", port: first.port, logger: logger, onServerRunning: onRunning)
            }
        }
        await first.stop()
    }
}
