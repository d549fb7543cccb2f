import HLSPlaylist
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineTesting
import Testing

/// What one request reads from the registry under its lock (`ResourceLookup.find`): the facts
/// the status policy weighs and the one rendering or file the answer may send.
@Suite struct ResourceLookupTests {
    let clock = ManualClock()
    let registry: StreamRegistry

    init() {
        registry = StreamRegistry(clock: clock.read)
        registry.apply(.register(stream: "main", variants: ["720p", "360p"], targetDuration: 2))
        clock.advance(by: 5)
        registry.apply(.publish(.init(.segment("000000.ts", file: .init(path: "/d/0.ts", size: 1000, duration: 2)),
                                      stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 1))))
        registry.apply(.publish(.init(.gap("000000.ts"), stream: "main", variant: "360p", playlist: TestPlaylists.live(count: 1))))
    }

    func find(_ path: String, limit: String? = nil) throws -> ResourceLookup? {
        guard case let .success(resource) = OriginPath.parse(path) else { throw Refusal(.noSuchResource, "test path \(path) did not parse") }
        return ResourceLookup.find(resource, variantLimit: limit, in: registry)
    }

    @Test func aListedSegmentCarriesItsFileAndAGapSaysSo() throws {
        let listed = try #require(try find("/live/main/720p/000000.ts"))
        #expect(listed.file?.path == "/d/0.ts" && !listed.gap && listed.variantExists)
        #expect(listed.lastPublished == 1005 && listed.targetDuration == 2 && listed.isLive, "published 5 s after the clock's start at 1000")
        let gap = try #require(try find("/live/main/360p/000000.ts"))
        #expect(gap.file == nil && gap.gap)
        let unlisted = try #require(try find("/live/main/720p/000009.ts"))
        #expect(unlisted.file == nil && !unlisted.gap)
    }

    @Test func aStreamNoOneHasIsNilAndAVariantNoOneHasIsSaid() throws {
        #expect(try find("/live/other/master.m3u8") == nil)
        #expect(try find("/live/main/1080p/index.m3u8")?.variantExists == false)
    }

    @Test func aMediaPlaylistCarriesItsRenderingAndALimitNoVariantHasListsTheLadder() throws {
        #expect(try find("/live/main/720p/index.m3u8")?.media != nil)
        #expect(try find("/live/main/master.m3u8", limit: "1080p")?.variantOrder == ["720p", "360p"])
        #expect(try find("/live/main/master.m3u8")?.variantOrder == [])
    }
}
