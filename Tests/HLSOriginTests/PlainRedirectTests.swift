import Foundation
@testable import HLSOrigin
import Hummingbird
import Logging
import TestSupport
import Testing

/// The plain port (`server.plain_port`, `plain_http: redirect`): 308 to the configured name,
/// never to the request's Host, with the TLS port's connection limits.
@Suite struct PlainRedirectTests {
    @Test func locationIsThePublicNameWithTheSameTarget() {
        #expect(OriginServer.redirectLocation(publicName: "sideline.venue", tlsPort: 8443, target: "/live/main/master.m3u8?x=1")
            == "https://sideline.venue:8443/live/main/master.m3u8?x=1")
        #expect(OriginServer.redirectLocation(publicName: "10.0.0.2", tlsPort: 443, target: "/") == "https://10.0.0.2/")
        // Targets a client could steer the redirect with go to the root.
        #expect(OriginServer.redirectLocation(publicName: "a", tlsPort: 443, target: "//evil.example/x") == "https://a/")
        #expect(OriginServer.redirectLocation(publicName: "a", tlsPort: 443, target: "http://evil.example/") == "https://a/")
        #expect(OriginServer.redirectLocation(publicName: "a", tlsPort: 443, target: nil) == "https://a/")
    }

    @Test func theNameIsConfiguredOrTheCertificatesOrTheListeningAddress() {
        #expect(OriginServer.publicName(configured: "sideline.venue", tls: nil, host: "10.0.0.2") == "sideline.venue")
        #expect(OriginServer.publicName(configured: nil, tls: nil, host: "10.0.0.2") == "10.0.0.2")
        #expect(OriginServer.publicName(configured: nil, tls: nil, host: "0.0.0.0") == "localhost")
        #expect(OriginServer.publicName(configured: nil, tls: nil, host: "fe80::1") == "[fe80::1]")
    }

    @Test func aLiveRedirectIgnoresTheHostHeaderAndClosesIdleConnections() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let admission = AdmissionControl(limits: .init(maxConnections: 100, maxRequestsInFlight: 100, maxConnectionsPerClient: 8, idleTimeout: .milliseconds(500)))
        try await ServerUnderTest.with({ onRunning in
            OriginServer.makeRedirectApplication(publicName: "sideline.venue", host: "127.0.0.1", port: 0, tlsPort: { 8443 }, admission: admission,
                                                 logger: logger, onServerRunning: onRunning)
        }) { port in
            // The request says Host: 127.0.0.1 (HTTPExchange); the answer names the public name.
            // Connected and sent in one go on one thread: a connect and a send on two threads
            // could be further apart than the idle timeout on a busy machine (CI, 2026-11-29:
            // the server closed the connection before the request came, "connection reset").
            let first = try #require(try await HTTPExchange.send([.get("/live/main/master.m3u8")], port: port).first)
            #expect(first.statusLine.hasPrefix("HTTP/1.1 308"))
            #expect(first.header("location") == "https://sideline.venue:8443/live/main/master.m3u8")
            // A connection that sends nothing is closed after the idle timeout, as on the TLS port
            // (the plain port had none).
            let idle = try await LoopbackSockets.connect(port: port)
            defer { close(idle) }
            let started = ContinuousClock.now
            let closed = try await LoopbackSockets.onOwnThread {
                var byte: UInt8 = 0
                var timeout = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(idle, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                return recv(idle, &byte, 1, 0) == 0
            }
            #expect(closed && ContinuousClock.now - started < .seconds(4))
        }
    }
}
