import Foundation
import HLSOrigin
import Hummingbird
import HummingbirdTesting
import Logging
import OriginRegistry
import OriginState
import SidelineTesting
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// One device cannot starve the others: connections over its address's cap are closed at
/// once, idle ones after the idle timeout, and a player at another address is served.
@Suite struct ClientLimitsHTTPTests {
    @Test func oneAddressCannotTakeEveryConnection() async throws {
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        registry.apply(.publish(.init(.segment("000000.ts", file: .init(path: "/nonexistent", size: 188, duration: 2)),
            stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 1))))
        registry.apply(.master(stream: "main", .parsed("#EXTM3U\n")))
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let admission = AdmissionControl(limits: .init(maxConnections: 100, maxRequestsInFlight: 50, maxConnectionsPerClient: 20, idleTimeout: .seconds(1)))
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger, admission: admission)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            // 150 idle connections from one address: more than the whole server's limit.
            let openedAt = Date()
            var opened: [Int32] = []
            for _ in 0..<150 { opened.append(try await LoopbackSockets.connect(port: port)) }
            defer { for fd in opened { close(fd) } }
            // Wait until the server has accepted them all and closed the ones over the cap (on
            // a loaded machine that takes a moment; the test must not race the accept loop).
            var closedAtOnce = 0
            while Date().timeIntervalSince(openedAt) < 10 {
                closedAtOnce = opened.filter { LoopbackSockets.isClosed($0) }.count
                if closedAtOnce >= 130 && admission.openConnections <= 25 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(closedAtOnce >= 130, "connections over the address's cap of 20 are closed (\(closedAtOnce) of 150)")
            #expect(admission.clients.openConnections(from: "127.0.0.1") <= 20)
            // A player at another address is served.
            #expect(try await LoopbackSockets.status(port: port, path: "/live/main/master.m3u8", from: "127.0.0.2") == 200)
            // The idle ones are closed after the idle timeout (1 s here), not left open.
            var stillOpen = opened.filter { !LoopbackSockets.isClosed($0) }
            while !stillOpen.isEmpty && Date().timeIntervalSince(openedAt) < 15 {
                try await Task.sleep(for: .milliseconds(100))
                stillOpen = stillOpen.filter { !LoopbackSockets.isClosed($0) }
            }
            #expect(stillOpen.isEmpty, "\(stillOpen.count) idle connections still open \(Date().timeIntervalSince(openedAt)) s after they were opened (idle timeout 1 s)")
        }
    }

    /// An IPv6 client counts by its /64 (`ClientKey`): the cap holds for connections from ::1,
    /// counted under its /64's key, not under the address.
    @Test func anIPv6ClientIsCountedByIts64() async throws {
        let registry = StreamRegistry(clock: { 0 })
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let admission = AdmissionControl(limits: .init(maxConnections: 100, maxRequestsInFlight: 50, maxConnectionsPerClient: 3, idleTimeout: .seconds(30)))
        // HummingbirdTesting's live mode listens on 127.0.0.1 whatever the host: run it as serve does.
        try await ServerUnderTest.with({ onRunning in
            OriginServer.makeApplication(registry: registry, host: "::1", port: 0, logger: logger, admission: admission, onServerRunning: onRunning)
        }) { port in
            var opened: [Int32] = []
            defer { for fd in opened { close(fd) } }
            for _ in 0..<8 { opened.append(try await LoopbackSockets.connectIPv6(port: port)) }
            let started = ContinuousClock.now
            var closed = 0
            while ContinuousClock.now - started < .seconds(10) {
                closed = opened.filter { LoopbackSockets.isClosed($0) }.count
                if closed >= 5 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(closed == 5, "8 connections from one /64 with a cap of 3: \(closed) closed")
            #expect(admission.clients.openConnections(from: "0:0:0:0::/64") == 3)
        }
    }

    /// The body-read timeout: a request whose body stops arriving is closed after the idle
    /// timeout, like a request whose head stops (the timer restarts with every part read, as
    /// nginx's client_body_timeout restarts with every read).
    @Test func aRequestBodyThatStopsArrivingIsClosedAfterTheIdleTimeout() async throws {
        let registry = StreamRegistry(clock: { 0 })
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let admission = AdmissionControl(limits: .init(idleTimeout: .seconds(1)))
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger, admission: admission)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            // A head that promises 1,000 bytes, then 10 of them, then nothing. Connected and sent
            // on one thread in one go: in the parallel unit phase of CI=true scripts/test
            // (2026-11-29 06:34) the test's task resumed after connecting more than the 1 s idle
            // timeout late, the server rightly closed the silent connection, and the close was
            // timed from the late send (under 900 ms).
            let request = Array("POST /api/streams HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n0123456789".utf8)
            let (fd, started) = try await LoopbackSockets.onOwnThread { () -> (Int32, ContinuousClock.Instant) in
                let fd = try LoopbackSockets.connectBlocking(port: port)
                _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                return (fd, ContinuousClock.now)
            }
            defer { close(fd) }
            // Whatever the route answers, the connection must end: read to the end of the stream.
            // Generous: the suite runs in parallel with the encoding tests, and at load average 15
            // (seen) the server's 1 s timer once fired more than 6 s late.
            let ended = try await LoopbackSockets.waitForClose(fd, timeout: 15)
            let waited = ContinuousClock.now - started
            #expect(ended, "the server closed the connection")
            #expect(waited >= .milliseconds(900) && waited < .seconds(15), "after the idle timeout of 1 s, not at once and not never (\(waited))")
        }
    }
}
