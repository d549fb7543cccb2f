import Foundation
import HLSOrigin
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing

/// 503 for draining and admission limits, and the admin API's authentication, over real HTTP
/// on 127.0.0.1 (the drills themselves run against real pipelines in the end-to-end tests).
@Suite struct AdmissionAndAdminHTTPTests {
    /// Records what the admin API asked for: the seam between HTTP and the pipelines.
    final class RecordedOperations: StreamOperations {
        let calls = Mutex<[String]>([])
        func failVariant(stream: String, variant: String, seconds: Double?) throws(AdminError) {
            guard stream == "main" else { throw .unknownStream(stream) }
            guard variant == "720p" else { throw .unknownVariant(variant, of: stream) }
            calls.withLock { $0.append("fail \(stream)/\(variant)" + (seconds.map { " \($0)" } ?? "")) }
        }
        func stall(stream: String, seconds: Double) throws(AdminError) {
            guard stream == "main" else { throw .unknownStream(stream) }
            calls.withLock { $0.append("stall \(stream) \(seconds)") }
        }
        func cutInput(stream: String, seconds: Double) throws(AdminError) {
            guard stream == "main" else { throw .unknownStream(stream) }
            calls.withLock { $0.append("cut \(stream) \(seconds)") }
        }
        func endStream(stream: String) throws(AdminError) {
            guard stream == "main" else { throw .unknownStream(stream) }
            calls.withLock { $0.append("end \(stream)") }
        }
        func removeStream(stream: String) throws(AdminError) {
            guard stream == "main" else { throw .unknownStream(stream) }
            calls.withLock { $0.append("remove \(stream)") }
        }
    }

    func makeApplication(admission: AdmissionControl = AdmissionControl(), admin: AdminRoutes? = nil) -> some ApplicationProtocol {
        let registry = StreamRegistry(clock: { 0 }) // time stands still: these tests are not about staleness
        registry.register(stream: "main", variants: ["720p"], targetDuration: 2)
        registry.publish(stream: "main", variant: "720p", segmentName: "000000.ts", file: .init(path: "/nonexistent", size: 0, duration: 2),
                         playlist: TestPlaylists.live(count: 1))
        registry.setMaster(stream: "main", text: "#EXTM3U\n")
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger, admission: admission, admin: admin)
    }

    @Test func drainingAnswers503WithRetryAfterOnEveryRoute() async throws {
        let admission = AdmissionControl()
        try await makeApplication(admission: admission).test(.live) { client in
            try await client.execute(uri: "/live/main/720p/index.m3u8", method: .get) { #expect($0.status == .ok) }
            admission.beginDraining()
            for uri in ["/live/main/720p/index.m3u8", "/live/main/master.m3u8", "/api/streams", "/healthz"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .serviceUnavailable, "\(uri)")
                    #expect(response.headers[.retryAfter] == "5")
                    #expect(response.headers[.cacheControl] == "public, max-age=1")
                }
            }
            #expect(admission.refusedRequests == 4)
        }
    }

    @Test func aConnectionOverTheLimitIsAnswered503NotLeftWaiting() async throws {
        // HummingbirdTesting's live mode drops the connection delegate from the configuration,
        // so this test runs the application itself and speaks HTTP over plain sockets.
        let admission = AdmissionControl(limits: .init(maxConnections: 1))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let registry = StreamRegistry(clock: { 0 }) // time stands still: these tests are not about staleness
        registry.register(stream: "main", variants: ["720p"], targetDuration: 2)
        var logger = Logger(label: "test")
        logger.logLevel = .critical // cancelling the server task at the end logs errors that mean nothing here
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger, admission: admission) { continuation.yield($0) }
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())

        // Another client's idle connection takes the only place.
        let idle = try connectTCP(port: port)
        let deadline = ContinuousClock.now + .seconds(10)
        while admission.openConnections < 1 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let refused = try rawGET(port: port, path: "/healthz")
        #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused)")
        #expect(refused.lowercased().contains("retry-after: 1\r\n"))
        close(idle)
        while admission.openConnections > 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let admitted = try rawGET(port: port, path: "/healthz")
        #expect(admitted.hasPrefix("HTTP/1.1 200"), "\(admitted)")
    }

    @Test func requestsInFlightOverTheLimitAre503() async throws {
        // A limit of 0 in flight refuses everything: the counting path, without racing requests.
        let admission = AdmissionControl(limits: .init(maxRequestsInFlight: 0))
        try await makeApplication(admission: admission).test(.live) { client in
            try await client.execute(uri: "/live/main/master.m3u8", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "1")
            }
        }
    }

    @Test func adminRequestsNeedTheBearerToken() async throws {
        let operations = RecordedOperations()
        let app = makeApplication(admin: AdminRoutes(token: "s3cret", drillsEnabled: true, operations: operations))
        try await app.test(.live) { client in
            let uri = "/admin/streams/main/variants/720p/fail"
            try await client.execute(uri: uri, method: .post) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == "Bearer realm=\"sideline-admin\"")
            }
            for wrong in ["Bearer s3cre", "Bearer s3cret2", "Basic s3cret", "s3cret"] {
                try await client.execute(uri: uri, method: .post, headers: [.authorization: wrong]) { #expect($0.status == .unauthorized, "\(wrong)") }
            }
            #expect(operations.calls.withLock { $0 }.isEmpty)
            let auth: HTTPFields = [.authorization: "Bearer s3cret"]
            try await client.execute(uri: uri, method: .post, headers: auth) { #expect($0.status == .accepted) }
            try await client.execute(uri: uri + "?seconds=4", method: .post, headers: auth) { #expect($0.status == .accepted) }
            try await client.execute(uri: uri + "?seconds=0", method: .post, headers: auth) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/admin/streams/main/stall?seconds=2.5", method: .post, headers: auth) { #expect($0.status == .accepted) }
            try await client.execute(uri: "/admin/streams/main/stall?seconds=-1", method: .post, headers: auth) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/admin/streams/main/cut?seconds=30", method: .post, headers: auth) { #expect($0.status == .accepted) }
            try await client.execute(uri: "/admin/streams/other/stall", method: .post, headers: auth) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/admin/streams/main/variants/1080p/fail", method: .post, headers: auth) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body) == "stream 'main' has no variant '1080p'\n")
            }
            #expect(operations.calls.withLock { $0 } == ["fail main/720p", "fail main/720p 4.0", "stall main 2.5", "cut main 30.0"])
        }
    }

    @Test func drillsAreRefusedUnlessEnabledButEndAndRemoveAreNot() async throws {
        let operations = RecordedOperations()
        let app = makeApplication(admin: AdminRoutes(token: "s3cret", drillsEnabled: false, operations: operations))
        try await app.test(.live) { client in
            let auth: HTTPFields = [.authorization: "Bearer s3cret"]
            try await client.execute(uri: "/admin/streams/main/stall", method: .post, headers: auth) { response in
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("admin.drills"))
            }
            try await client.execute(uri: "/admin/streams/main/end", method: .post) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/admin/streams/main", method: .delete) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/admin/streams/main/end", method: .post, headers: auth) { #expect($0.status == .accepted) }
            try await client.execute(uri: "/admin/streams/main", method: .delete, headers: auth) { #expect($0.status == .accepted) }
            try await client.execute(uri: "/admin/streams/other", method: .delete, headers: auth) { #expect($0.status == .notFound) }
        }
        #expect(operations.calls.withLock { $0 } == ["end main", "remove main"])
    }

    @Test func withoutATokenThereIsNoAdminAPI() async throws {
        try await makeApplication().test(.live) { client in
            try await client.execute(uri: "/admin/streams/main/stall", method: .post) { #expect($0.status == .notFound) }
        }
    }
}

/// One HTTP/1.1 GET on a connection of its own; the whole response as text.
func rawGET(port: Int, path: String) throws -> String {
    let fd = try connectTCP(port: port)
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        response += buffer[0..<count]
    }
    return String(decoding: response, as: UTF8.self)
}

/// An open, idle TCP connection to 127.0.0.1:port.
func connectTCP(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard result == 0 else {
        close(fd)
        throw POSIXError(.ECONNREFUSED)
    }
    return fd
}
