import Foundation
@testable import HLSOrigin
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import OriginPolicy
@testable import OriginRegistry
import OriginState
import SidelineTesting
import Synchronization
import Testing

/// Delta updates and blocking reload (draft-pantos-hls-rfc8216bis §6.2.5), row by row against
/// the draft's rules, then over HTTP with a request held until its segment is published.
@Suite struct DeliveryDirectivesTests {
    static func served(count: Int, ended: Bool = false) -> ServedMediaPlaylist {
        ServedMediaPlaylist(TestPlaylists.live(count: count, ended: ended), offer: .init(), tag: "t")
    }

    @Test func blockingReloadRows() {
        let live = Self.served(count: 10) // last sequence 9
        #expect(live.lastSequence == 9)
        let decide = { (msn: Int?) in BlockingReload.decide(PlaylistDirectives(mediaSequence: msn), playlist: live, targetDuration: 2, offered: true) }
        #expect(decide(nil) == .answerNow)
        #expect(decide(5) == .answerNow, "already listed")
        #expect(decide(9) == .answerNow)
        #expect(decide(10) == .hold(sequence: 10, seconds: 6), "the next segment: held for at most three target durations")
        #expect(decide(11) == .hold(sequence: 11, seconds: 6), "two past the last: still held")
        if case .badRequest = decide(12) {} else { Issue.record("more than two past the last segment is a 400 at once") }
        // Not offered (server.blocking_reload: false), or an ended playlist: never held.
        #expect(BlockingReload.decide(PlaylistDirectives(mediaSequence: 10), playlist: live, targetDuration: 2, offered: false) == .answerNow)
        #expect(BlockingReload.decide(PlaylistDirectives(mediaSequence: 12), playlist: Self.served(count: 10, ended: true), targetDuration: 2, offered: true) == .answerNow)
    }

    @Test func livePlaylistsAdvertiseWhatTheyOfferAndEndedOnesNothing() {
        let live = String(buffer: Self.served(count: 10).full.plain)
        #expect(live.hasPrefix("#EXTM3U\n#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=12,CAN-SKIP-DATERANGES=YES,CAN-BLOCK-RELOAD=YES\n"))
        let ended = Self.served(count: 10, ended: true)
        #expect(!String(buffer: ended.full.plain).contains("SERVER-CONTROL"))
        #expect(ended.skip == nil && ended.skipDateRanges == nil)
        let blockingOnly = ServedMediaPlaylist(TestPlaylists.live(count: 10), offer: .init(deltaUpdates: false), tag: "t")
        #expect(String(buffer: blockingOnly.full.plain).contains("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES\n"))
        #expect(blockingOnly.skip == nil)
    }

    /// `sleep`: how held requests wait out their time (the registry's own unless given).
    func registry(count: Int, targetDuration: Int = 2, sleep: (@Sendable (Double) async throws -> Void)? = nil) -> StreamRegistry {
        let registry = sleep.map { StreamRegistry(clock: { 0 }, sleep: $0) } ?? StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: targetDuration))
        registry.apply(.publish(.init(.segment("000000.ts", file: .init(path: "/nonexistent", size: 188, duration: 2)),
            stream: "main", variant: "720p", playlist: TestPlaylists.live(count: count, targetDuration: targetDuration))))
        registry.apply(.master(stream: "main", .parsed("#EXTM3U\n")))
        return registry
    }

    func decide(_ uri: String, _ registry: StreamRegistry, held: Bool = false) -> OriginDecision {
        let parts = uri.split(separator: "?", maxSplits: 1).map(String.init)
        return OriginDecision.decide(OriginPath.parse(parts[0]), directives: PlaylistDirectives.parse(query: parts.count > 1 ? parts[1] : nil), held: held, registry: registry)
    }

    @Test func theOriginChoosesTheFormAndHolds() throws {
        let registry = registry(count: 100)
        let variant = try #require(registry.snapshot(of: "main")?.served.variants["720p"]?.playlist)
        #expect(decide("/live/main/720p/index.m3u8", registry) == .playlist(variant.full, .livePlaylist(maxAge: 1)))
        #expect(decide("/live/main/720p/index.m3u8?_HLS_skip=YES", registry) == .playlist(try #require(variant.skip), .livePlaylist(maxAge: 1)))
        #expect(decide("/live/main/720p/index.m3u8?_HLS_skip=v2", registry) == .playlist(try #require(variant.skipDateRanges), .livePlaylist(maxAge: 1)))
        #expect(decide("/live/main/720p/index.m3u8?_HLS_msn=100", registry)
            == .hold(.init(stream: "main", variant: "720p", iFrames: false, sequence: 100, seconds: 6)))
        #expect(decide("/live/main/720p/index.m3u8?_HLS_msn=100&_HLS_skip=YES", registry, held: true) == .playlist(try #require(variant.skip), .livePlaylist(maxAge: 1)),
                "after the hold, what is current, in the form asked for")
        guard case let .refuse(far) = decide("/live/main/720p/index.m3u8?_HLS_msn=102", registry) else {
            Issue.record("_HLS_msn more than two past the last segment must be refused")
            return
        }
        #expect(far.status == 400 && far.reason.contains("_HLS_msn=102"))
        guard case let .refuse(bad) = decide("/live/main/720p/index.m3u8?_HLS_skip=maybe", registry) else {
            Issue.record("a bad _HLS_skip must be refused")
            return
        }
        #expect(bad.status == 400)
        // Refusals come first: a removed stream is 410 whatever the directives say.
        registry.apply(.phase(stream: "main", .removed))
        guard case let .refuse(gone) = decide("/live/main/720p/index.m3u8?_HLS_msn=100", registry) else {
            Issue.record("a removed stream is refused")
            return
        }
        #expect(gone.status == 410)
    }

    @Test func aHeldRequestWakesOnItsSegmentOrItsTimeAndCostsNoThread() async {
        // Time is up: answered at its time although nothing was published, not before. In
        // simulated time, so the machine's load cannot make it late.
        let time = SimulatedTime()
        let timed = registry(count: 10, sleep: time.sleeper)
        let started = time.now
        let answered = Mutex<Double?>(nil)
        time.start {
            await timed.waitUntilListed(stream: "main", variant: "720p", sequence: 10, seconds: 0.05)
            answered.withLock { $0 = time.now }
        }
        #expect(!time.run(until: { answered.withLock { $0 != nil } }, limit: started + 0.049))
        #expect(timed.heldRequests == 1, "held until its time")
        #expect(time.run(until: { answered.withLock { $0 != nil } }, limit: started + 1))
        #expect(abs((answered.withLock { $0 } ?? 0) - (started + 0.05)) < 1e-9)
        #expect(timed.heldRequests == 0)
        let registry = registry(count: 10)
        // Already listed: no wait at all.
        await registry.waitUntilListed(stream: "main", variant: "720p", sequence: 9, seconds: 600)
        // Many held at once, all woken by one publication; none by an unrelated one.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask { await registry.waitUntilListed(stream: "main", variant: "720p", sequence: 10, seconds: 600) }
            }
            while registry.heldRequests < 200 { await Task.yield() }
            registry.apply(.publish(.init(.segment("000009.ts", file: .init(path: "/nonexistent", size: 188, duration: 2)),
                stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 10))))
            #expect(registry.heldRequests == 200, "sequence 9 again wakes nobody waiting for 10")
            registry.apply(.publish(.init(.segment("000010.ts", file: .init(path: "/nonexistent", size: 188, duration: 2)),
                stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 11))))
            await group.waitForAll()
        }
        #expect(registry.heldRequests == 0)
        // The stream ends: everyone held is answered.
        let ending = Task { await registry.waitUntilListed(stream: "main", variant: "720p", sequence: 12, seconds: 600) }
        while registry.heldRequests < 1 { await Task.yield() }
        registry.apply(.phase(stream: "main", .ended))
        await ending.value
        // A client that goes away is forgotten.
        let registry2 = self.registry(count: 10)
        let leaving = Task { await registry2.waitUntilListed(stream: "main", variant: "720p", sequence: 10, seconds: 600) }
        while registry2.heldRequests < 1 { await Task.yield() }
        leaving.cancel()
        await leaving.value
        #expect(registry2.heldRequests == 0)
    }

    /// A real server on an ephemeral port: a request for the next segment's playlist is held
    /// and answered, with that segment listed, as soon as it is published.
    @Test func blockingReloadOverHTTP() async throws {
        let registry = registry(count: 10)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger)
        try await app.test(.live) { client in
            async let held: (HTTPResponse.Status, String) = client.execute(uri: "/live/main/720p/index.m3u8?_HLS_msn=10&_HLS_skip=YES", method: .get) { response in
                (response.status, String(buffer: response.body))
            }
            while registry.heldRequests < 1 { try await Task.sleep(for: .milliseconds(5)) }
            registry.apply(.publish(.init(.segment("000010.ts", file: .init(path: "/nonexistent", size: 188, duration: 2)),
                stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 11))))
            let (status, body) = try await held
            #expect(status == .ok)
            #expect(body.contains("000010.ts"))
            #expect(body.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=5\n"), "11 entries of 2 s, boundary 12 s: five skipped")
            try await client.execute(uri: "/live/main/720p/index.m3u8?_HLS_msn=14", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("more than two"))
            }
        }
    }
}
