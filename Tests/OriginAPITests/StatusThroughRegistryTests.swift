import HLSOrigin
import NIOCore
import OriginAPI
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineTesting
import Testing

/// The status table through the registry with a manual clock: staleness per variant and
/// recovery, with time moved, never slept (the rows themselves: OriginPolicyTests).
@Suite struct StatusThroughRegistryTests {
    // MARK: - through the registry, with a manual clock

    func liveRegistry(_ clock: ManualClock) -> StreamRegistry {
        let registry = StreamRegistry(clock: clock.read)
        registry.apply(.register(stream: "main", variants: ["720p", "360p"], targetDuration: 2))
        for variant in ["720p", "360p"] {
            registry.apply(.publish(.init(.segment("000000.ts", file: .init(path: "/data/main/\(variant)/000000.ts", size: 1880, duration: 2)),
                stream: "main", variant: variant, playlist: TestPlaylists.live(count: 1))))
        }
        registry.apply(.master(stream: "main", .parsed("#EXTM3U\n")))
        return registry
    }

    func status(_ path: String, _ registry: StreamRegistry) -> Int {
        switch OriginDecision.decide(OriginPath.parse(path), registry: registry) {
        case .playlist, .segment, .part, .partOfFile, .steering: 200
        case .hold: 0
        case let .refuse(refusal): refusal.status
        }
    }

    @Test func aVariantThatStopsPublishingGoesStaleAloneAndRecovers() {
        let clock = ManualClock()
        let registry = liveRegistry(clock)
        clock.advance(by: 3.9)
        registry.apply(.publish(.init(.segment("000001.ts", file: .init(path: "/data/main/720p/000001.ts", size: 1880, duration: 2)),
            stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 1))))
        clock.advance(by: 0.2) // 4.1 s since 360p published: 1.5 target durations past the 1 s grace
        #expect(status("/live/main/720p/index.m3u8", registry) == 200)
        #expect(status("/live/main/360p/index.m3u8", registry) == 404)
        #expect(status("/live/main/360p/000000.ts", registry) == 200)
        #expect(StreamsAPI.listing(of: registry).streams[0].variants.map(\.state) == ["live", "stalled"])
        registry.apply(.publish(.init(.gap("000001.ts"), stream: "main", variant: "360p", playlist: TestPlaylists.live(count: 1))))
        #expect(status("/live/main/360p/index.m3u8", registry) == 200)
        #expect(status("/live/main/360p/000001.ts", registry) == 404)
        clock.advance(by: 10)
        #expect(StreamsAPI.listing(of: registry).streams[0].state == "stalled")
        registry.apply(.phase(stream: "main", .ended))
        #expect(status("/live/main/360p/index.m3u8", registry) == 200)
    }

    @Test func gapAndRemovedThroughTheRegistry() {
        let clock = ManualClock()
        let registry = liveRegistry(clock)
        registry.apply(.failure(stream: "main", variant: "360p", "x264 said no"))
        registry.apply(.publish(.init(.gap("000001.ts"), stream: "main", variant: "360p", playlist: TestPlaylists.live(count: 1))))
        guard case let .refuse(refusal) = OriginDecision.decide(OriginPath.parse("/live/main/360p/000001.ts"), registry: registry) else {
            Issue.record("a GAP segment must be refused")
            return
        }
        #expect(refusal.status == 404 && refusal.cache == .gapSegment(maxAge: 2))
        let variant = StreamsAPI.listing(of: registry).streams[0].variants[1]
        #expect(variant.state == "failed" && variant.failure == "x264 said no")
        registry.apply(.phase(stream: "main", .removed))
        #expect(status("/live/main/master.m3u8", registry) == 410)
        #expect(status("/live/main/720p/000000.ts", registry) == 410)
    }
}
