import Foundation
import HLSOrigin
import Hummingbird
import Logging
import OriginAccess
import OriginRegistry
import OriginState
import SidelineTesting
import TestSupport
import Testing

/// Failed credentials slowed per address on a real server, on both of the origin's paths:
/// after the burst, a request that offers a credential is answered 429 with Retry-After
/// (counted in /metrics), one without is answered as before, and the allowance comes back by
/// the throttle's clock (injected: no sleeping).
@Suite struct CredentialThrottleHTTPTests {
    final class Clock: @unchecked Sendable {
        // Read on the event loop and written by the test between requests, never at once.
        var now = 100.0
    }

    @Test(arguments: [true, false])
    func aBurstOfWrongCredentialsIsAnswered429UntilTheAllowanceComesBack(fastPath: Bool) async throws {
        let registry = StreamRegistry(clock: { 10 })
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        registry.apply(.master(stream: "main", .parsed("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\n720p/index.m3u8\n")))
        registry.apply(.register(stream: "open", variants: ["720p"], targetDuration: 2))
        registry.apply(.master(stream: "open", .parsed("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\n720p/index.m3u8\n")))
        let clock = Clock()
        let throttling = CredentialThrottling(limits: .init(burst: 3, refillSeconds: 20), clock: { clock.now })
        let access = ViewerAccess(rules: AccessRules(viewerTokens: ["main": "main-viewer-token-0123"]))
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        try await ServerUnderTest.with({ onRunning in
            OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger, fastPath: fastPath, access: access,
                                         throttling: throttling, onServerRunning: onRunning)
        }) { port in
            func status(_ target: String, _ headers: [String: String] = [:]) async throws -> HTTPExchange.Response {
                try #require(try await HTTPExchange.send([.get(target, headers)], port: port).first)
            }
            func code(_ response: HTTPExchange.Response) -> Int { Int(response.statusLine.split(separator: " ")[1]) ?? 0 }

            let wrong = ["Authorization": "Bearer not-the-token-0123"]
            for _ in 0..<3 { #expect(code(try await status("/live/main/master.m3u8", wrong)) == 401) }
            let throttled = try await status("/live/main/master.m3u8", wrong)
            #expect(code(throttled) == 429 && throttled.header("retry-after") == "20", "\(throttled.statusLine)")
            #expect(throttled.header("cache-control") == "no-store")
            // A wrong URL credential from the same address: throttled too.
            #expect(code(try await status("/access/v1.main.forged/live/main/master.m3u8")) == 429)
            // No credential: answered as ever (401 for the private stream, 200 for the open one).
            #expect(code(try await status("/live/main/master.m3u8")) == 401)
            #expect(code(try await status("/live/open/master.m3u8")) == 200)
            // One attempt back after 20 s; the right token uses none.
            clock.now += 20
            #expect(code(try await status("/live/main/master.m3u8", ["Authorization": "Bearer main-viewer-token-0123"])) == 200)
            #expect(code(try await status("/live/main/master.m3u8", ["Authorization": "Bearer main-viewer-token-0123"])) == 200)
            #expect(code(try await status("/live/main/master.m3u8", wrong)) == 401)
            #expect(code(try await status("/live/main/master.m3u8", wrong)) == 429)
        }
    }
}
