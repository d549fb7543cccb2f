import Foundation
import HLSOrigin
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import OriginRegistry
import OriginState
import SidelineTesting
import Synchronization
import TestSupport
import Testing

/// 503 for draining and admission limits, over real HTTP on 127.0.0.1.
@Suite struct AdmissionHTTPTests {
    func makeApplication(admission: AdmissionControl = AdmissionControl()) -> some ApplicationProtocol {
        let registry = StreamRegistry(clock: { 0 }) // time stands still: these tests are not about staleness
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        registry.apply(.publish(.init(.segment("000000.ts", file: .init(path: "/nonexistent", size: 0, duration: 2)),
            stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 1))))
        registry.apply(.master(stream: "main", .parsed("#EXTM3U\n")))
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger, admission: admission)
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
        // The connection table's clock stands still: the idle client never passes the eviction
        // grace (1 s), so the cap holds however slowly the test runs (CI, 15:37: on a loaded
        // machine the idle connection was evicted for the keep-alive client, which got 200).
        let admission = AdmissionControl(limits: .init(maxConnections: 1), clock: { 0 })
        let registry = StreamRegistry(clock: { 0 }) // time stands still: these tests are not about staleness
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        try await ServerUnderTest.with({ onRunning in
            OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger, admission: admission, onServerRunning: onRunning)
        }) { port in

            // Another client's idle connection takes the only place.
            let idle = try await LoopbackSockets.connect(port: port)
            let deadline = ContinuousClock.now + .seconds(10)
            while admission.openConnections < 1 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            let refused = try await LoopbackSockets.rawGET(port: port, path: "/healthz")
            #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused)")
            #expect(refused.lowercased().contains("retry-after: 1\r\n"))
            // A keep-alive client over the cap is closed once answered, not kept until the idle
            // timeout: a burst past the cap must not hold sockets past it.
            let keptAlive = try await LoopbackSockets.rawGET(port: port, path: "/healthz", keepAlive: true)
            #expect(keptAlive.hasPrefix("HTTP/1.1 503") && keptAlive.hasSuffix("[closed]"), "\(keptAlive)")
            close(idle)
            while admission.openConnections > 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            let admitted = try await LoopbackSockets.rawGET(port: port, path: "/healthz")
            #expect(admitted.hasPrefix("HTTP/1.1 200"), "\(admitted)")
        }
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
}
