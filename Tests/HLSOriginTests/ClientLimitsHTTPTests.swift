import Foundation
import HLSOrigin
import Hummingbird
import HummingbirdTesting
import Logging
import SidelineTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// One device cannot starve the others: connections over its address's cap are closed at
/// once, idle ones after the idle timeout, and a player at another address is served.
@Suite struct ClientLimitsHTTPTests {
    /// A TCP connection from `source` (a loopback address) to 127.0.0.1:`port`, as a file
    /// descriptor. `receiveBuffer`: the socket's receive buffer in bytes (set before connecting,
    /// so the window it offers stays that small), for clients that read slowly or not at all.
    static func connect(port: Int, from source: String = "127.0.0.1", receiveBuffer: Int32? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        return fd
    }

    /// Whether the server has closed the connection (a read returns end of file within `wait`).
    static func isClosed(_ fd: Int32, wait: Double = 0.2) -> Bool {
        var pollfd = Glibc.pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pollfd, 1, Int32(wait * 1000)) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) <= 0
    }

    /// A whole GET over a fresh connection from `source`; the status code.
    static func get(port: Int, path: String, from source: String) throws -> Int? {
        let fd = try connect(port: port, from: source)
        defer { close(fd) }
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var buffer = [UInt8](repeating: 0, count: 512)
        var pollfd = Glibc.pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pollfd, 1, 10_000) > 0 else { return nil }
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 12 else { return nil }
        return Int(String(decoding: buffer[9..<12], as: UTF8.self))
    }

    @Test func oneAddressCannotTakeEveryConnection() async throws {
        let registry = StreamRegistry(clock: { 0 })
        registry.register(stream: "main", variants: ["720p"], targetDuration: 2)
        registry.publish(stream: "main", variant: "720p", segmentName: "000000.ts", file: .init(path: "/nonexistent", size: 188, duration: 2), playlist: TestPlaylists.live(count: 1))
        registry.setMaster(stream: "main", text: "#EXTM3U\n")
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let admission = AdmissionControl(limits: .init(maxConnections: 100, maxRequestsInFlight: 50, maxConnectionsPerClient: 20, idleTimeout: .seconds(1)))
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger, admission: admission)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            // 150 idle connections from one address: more than the whole server's limit.
            let openedAt = Date()
            let opened = try (0..<150).map { _ in try Self.connect(port: port) }
            defer { for fd in opened { close(fd) } }
            // Wait until the server has accepted them all and closed the ones over the cap (on
            // a loaded machine that takes a moment; the test must not race the accept loop).
            var closedAtOnce = 0
            while Date().timeIntervalSince(openedAt) < 10 {
                closedAtOnce = opened.filter { Self.isClosed($0, wait: 0) }.count
                if closedAtOnce >= 130 && admission.openConnections <= 25 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(closedAtOnce >= 130, "connections over the address's cap of 20 are closed (\(closedAtOnce) of 150)")
            #expect(admission.clients.openConnections(from: "127.0.0.1") <= 20)
            // A player at another address is served.
            #expect(try Self.get(port: port, path: "/live/main/master.m3u8", from: "127.0.0.2") == 200)
            // The idle ones are closed after the idle timeout (1 s here), not left open.
            var stillOpen = opened.filter { !Self.isClosed($0, wait: 0) }
            while !stillOpen.isEmpty && Date().timeIntervalSince(openedAt) < 15 {
                try await Task.sleep(for: .milliseconds(100))
                stillOpen = stillOpen.filter { !Self.isClosed($0, wait: 0) }
            }
            #expect(stillOpen.isEmpty, "\(stillOpen.count) idle connections still open \(Date().timeIntervalSince(openedAt)) s after they were opened (idle timeout 1 s)")
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
            let fd = try Self.connect(port: port)
            defer { close(fd) }
            // A head that promises 1,000 bytes, then 10 of them, then nothing.
            let request = Array("POST /api/streams HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n0123456789".utf8)
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            let started = ContinuousClock.now
            // Whatever the route answers, the connection must end: read to the end of the stream.
            let ended = try await HTTPExchange.onOwnThread { () -> Bool in
                // Generous: the suite runs in parallel with the encoding tests, and at load
                // average 15 (seen) the server's 1 s timer once fired more than 6 s late.
                var timeout = timeval(tv_sec: 15, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if count == 0 { return true }
                    if count < 0 { return errno == ECONNRESET }
                }
            }
            let waited = ContinuousClock.now - started
            #expect(ended, "the server closed the connection")
            #expect(waited >= .milliseconds(900) && waited < .seconds(15), "after the idle timeout of 1 s, not at once and not never (\(waited))")
        }
    }
}
