import Foundation
import HLSPlaylist
import NIOCore
import OriginPolicy
@testable import OriginRegistry
import OriginRegistry
import OriginState
import SidelineTesting
import Testing

/// The registry over `OriginState` (whose rows are `OriginStateApplyTests`): what it renders
/// and serves of each change, that a rendering made for an older version never replaces a
/// newer one, and the held requests each change answers.
@Suite struct StreamRegistryPublicationTests {
    typealias File = StreamRegistry.SegmentFile
    let clock = ManualClock()
    let registry: StreamRegistry

    init() {
        registry = StreamRegistry(clock: clock.read)
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
    }

    var text: String? { registry.playlistText(stream: "main", variant: "720p") }
    var iFramesText: String? { registry.iFramePlaylistText(stream: "main", variant: "720p") }

    func publish(_ source: OriginChange.Source, count: Int, iFrames: Bool = false) {
        registry.apply(.publish(.init(source, stream: "main", variant: "720p", playlist: TestPlaylists.live(count: count),
                                      iFrames: iFrames ? TestPlaylists.live(count: count) : nil)))
    }

    @Test func whatIsPublishedIsServedAndTheIFramesHeldUntilARestore() {
        publish(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1000, duration: 2)), count: 1, iFrames: true)
        #expect(text?.contains("000000.ts") == true && iFramesText != nil)
        registry.apply(.publish(.init(.playlists, stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 1, ended: true))))
        #expect(text?.contains("#EXT-X-ENDLIST") == true && iFramesText != nil, "no I-frame playlist given: the one served stays")
        publish(.restored(segments: [:], gaps: []), count: 2)
        #expect(text?.contains("000001.ts") == true && iFramesText == nil, "restored without an I-frame playlist: none served")
    }

    /// A marker added while a publication's version renders: the marker's version is newer, so
    /// the publication's rendering, finishing after it, is not stored over it.
    @Test func aRenderingOfAnOlderVersionIsNeverStoredOverANewerOne() throws {
        publish(.segment("000004.ts", file: File(path: "/d/4.ts", size: 1, duration: 2)), count: 5)
        let older = try #require(registry.stream(named: "main")?.variants["720p"]?.version)
        let marker = Marker(id: "m-late", label: "Late", time: Date(timeIntervalSince1970: 1_800_000_005), created: Date(timeIntervalSince1970: 1_800_000_009), listedBefore: 4)
        registry.apply(.markers(stream: "main", [marker]))
        registry.carry(.variant(stream: "main", variant: "720p", version: older, markers: [], playlist: TestPlaylists.live(count: 5), edge: nil, wake: true))
        #expect(text?.contains("ID=\"m-late\"") == true && text?.contains("000004.ts") == true)
    }

    /// A stream registered again (a pushed stream taking a new ladder) starts afresh: what was
    /// rendered for the stream it replaced is not stored into it.
    @Test func aRenderingForAStreamRegisteredAgainIsDropped() throws {
        publish(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1, duration: 2)), count: 1)
        let older = try #require(registry.stream(named: "main")?.variants["720p"]?.version)
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        registry.carry(.variant(stream: "main", variant: "720p", version: older, markers: [], playlist: TestPlaylists.live(count: 1), edge: nil, wake: true))
        #expect(text == nil)
    }

    @Test func aMasterIsServedWithOnePerVariantForLimitedCredentials() throws {
        registry.apply(.master(stream: "main", .parsed("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\n720p/index.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=800000\n360p/index.m3u8?x=1\n")))
        let served = try #require(registry.snapshot(of: "main")?.served)
        #expect(served.master.map { String(buffer: $0.plain) }?.contains("360p/index.m3u8") == true)
        #expect(served.limitedMasters.keys.sorted() == ["360p", "720p"])
        #expect(served.limitedMasters["360p"].map { String(buffer: $0.plain) }?.contains("720p") == false)
    }

    /// Every source but a restore answers the requests held for what its version lists.
    @Test(arguments: [
        ("segment", OriginChange.Source.segment("000001.ts", file: File(path: "/d/1.ts", size: 1, duration: 2)), true),
        ("replacement", .replacement("000000-late.ts", file: File(path: "/d/0-late.ts", size: 1, duration: 2)), true),
        ("mirrored", .mirrored(segments: ["000001.ts": File(path: "/d/1.ts", size: 1, duration: 2)], gaps: []), true),
        ("gap", .gap("000001.ts"), true),
        ("playlists", .playlists, true),
        ("restored", .restored(segments: [:], gaps: []), false),
    ])
    func heldRequestsAreAnswered(name: String, source: OriginChange.Source, wakes: Bool) async {
        publish(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1, duration: 2)), count: 1)
        let held = Task { await registry.waitUntilListed(stream: "main", variant: "720p", sequence: 1, seconds: 60) }
        while registry.heldRequests == 0 { await Task.yield() }
        publish(source, count: 2)
        #expect((registry.heldRequests == 0) == wakes, "\(name)")
        registry.apply(.phase(stream: "main", .ended)) // answers whatever is still held
        await held.value
    }
}
