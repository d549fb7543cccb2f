import HLSOrigin
import HLSPlaylist
import OriginPolicy
import SidelineTesting
import Testing

/// The registry's one way in (`publish(_ Publication)`): each source does what its own method
/// did before there was one: what it adds to the index, what it counts for `/api/streams`,
/// whether it is the variant's last publication, the stream's phase, the held requests it wakes.
@Suite struct StreamRegistryPublicationTests {
    typealias File = StreamRegistry.SegmentFile
    let clock = ManualClock()
    let registry: StreamRegistry

    init() {
        registry = StreamRegistry(clock: clock.read)
        registry.register(stream: "main", variants: ["720p"], targetDuration: 2)
    }

    var variant: StreamRegistry.Variant? { registry.stream(named: "main")?.variants["720p"] }
    var phase: StreamRegistry.Phase? { registry.stream(named: "main")?.phase }
    /// What `/api/streams` counts: segments, seconds, bytes, the peak bit rate.
    var counted: [Double]? { variant.map { [Double($0.status.recorded.segments), $0.status.recorded.duration, Double($0.status.recorded.bytes), $0.status.recorded.peakBitRate] } }

    func publish(_ source: StreamRegistry.Source, count: Int, iFrames: Bool = false) {
        registry.publish(.init(source, stream: "main", variant: "720p", playlist: TestPlaylists.live(count: count),
                               iFrames: iFrames ? TestPlaylists.live(count: count) : nil))
    }

    @Test func aSegmentIsIndexedCountedTheLastPublicationAndMakesTheStreamLive() {
        #expect(phase == .starting)
        publish(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1000, duration: 2)), count: 1)
        clock.advance(by: 3)
        publish(.segment("000001.ts", file: File(path: "/d/1.ts", size: 500, duration: 1)), count: 2, iFrames: true)
        #expect(variant?.segments == ["000000.ts": File(path: "/d/0.ts", size: 1000, duration: 2), "000001.ts": File(path: "/d/1.ts", size: 500, duration: 1)])
        #expect(counted == [2, 3, 1500, 4000])
        #expect(variant?.status.lastPublished == 1003)
        #expect(variant?.lastSequence == 1 && variant?.iFramePlaylistText != nil)
        #expect(phase == .live)
    }

    @Test func aReplacementIsServedButNeitherCountedNorANewPublication() {
        publish(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1000, duration: 2)), count: 1, iFrames: true)
        let before = variant?.status
        clock.advance(by: 5)
        publish(.replacement("000000-late.ts", file: File(path: "/d/0-late.ts", size: 900, duration: 2)), count: 1)
        #expect(variant?.segments["000000-late.ts"] == File(path: "/d/0-late.ts", size: 900, duration: 2))
        #expect(variant?.status == before, "its slot was counted when it was filled")
        #expect(variant?.iFramePlaylistText != nil, "no I-frame playlist given: the one held stays")
    }

    @Test func aReplacementDoesNotMakeAStartingStreamLive() {
        publish(.replacement("000000-late.ts", file: File(path: "/d/0-late.ts", size: 900, duration: 2)), count: 1)
        #expect(phase == .starting)
    }

    @Test func aGapIsListedAndIsTheLastPublicationWithNothingCounted() {
        clock.advance(by: 7)
        publish(.gap("000000.ts"), count: 1)
        #expect(variant?.gaps == ["000000.ts"] && variant?.segments.isEmpty == true)
        #expect(counted == [0, 0, 0, 0] && variant?.status.lastPublished == 1007)
        #expect(phase == .starting, "a gap alone does not make the stream live")
    }

    @Test func aMirroredBatchIsOneVersionCountedWhenItBringsSomething() {
        publish(.mirrored(segments: ["000000.ts": File(path: "/m/0.ts", size: 100, duration: 2), "000002.ts": File(path: "/m/2.ts", size: 300, duration: 2)],
                          gaps: ["000001.ts"]), count: 3, iFrames: true)
        #expect(variant?.segments.count == 2 && variant?.gaps == ["000001.ts"])
        #expect(counted == [2, 4, 400, 1200])
        #expect(variant?.status.lastPublished == 1000 && variant?.lastSequence == 2 && variant?.iFramePlaylistText != nil)
        clock.advance(by: 4)
        publish(.mirrored(segments: [:], gaps: []), count: 3)
        #expect(variant?.status.lastPublished == 1000, "an empty batch is not a publication")
        #expect(phase == .starting, "the mirror sets its phase itself (following, upstream lost)")
    }

    @Test func newPlaylistsListNothingNewAndKeepTheIFramesHeld() {
        publish(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1000, duration: 2)), count: 1, iFrames: true)
        let before = variant?.status
        clock.advance(by: 9)
        registry.publish(.init(.playlists, stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 1, ended: true)))
        #expect(variant?.status == before && variant?.segments.count == 1)
        #expect(variant?.playlistText?.contains("#EXT-X-ENDLIST") == true && variant?.iFramePlaylistText != nil)
    }

    @Test func aRestoreReplacesTheVariantWholeAndCountsItsFiles() {
        publish(.segment("000009.ts", file: File(path: "/d/9.ts", size: 1, duration: 2)), count: 1, iFrames: true)
        registry.setFailure(stream: "main", variant: "720p", "x264 said no")
        registry.setWriteError(stream: "main", variant: "720p", "disk full")
        registry.setEffort(stream: "main", variant: "720p", step: 1, name: "veryfast")
        publish(.restored(segments: ["000000.ts": File(path: "/d/0.ts", size: 250, duration: 2)], gaps: ["000001.ts"]), count: 2)
        #expect(variant?.segments == ["000000.ts": File(path: "/d/0.ts", size: 250, duration: 2)] && variant?.gaps == ["000001.ts"])
        #expect(counted == [1, 2, 250, 1000])
        let status = variant?.status
        #expect(status?.failure == nil && status?.writeError == nil && status?.effortStep == 0 && status?.effortName == nil,
                "nothing of what this run noted survives a restore")
        #expect(status?.lastPublished == nil, "a restore is no publication of this run")
        #expect(variant?.iFramePlaylistText == nil, "restored without an I-frame playlist: none")
        #expect(phase == .live, "a restore leaves the phase as it was (the restorer sets it)")
    }

    @Test func aRestoreCanAddAVariantTheStreamWasNotRegisteredWith() {
        registry.publish(.init(.restored(segments: [:], gaps: []), stream: "main", variant: "1080p", playlist: TestPlaylists.live(count: 1)))
        #expect(registry.stream(named: "main")?.variants["1080p"]?.lastSequence == 0)
        registry.publish(.init(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1, duration: 2)), stream: "main", variant: "360p",
                               playlist: TestPlaylists.live(count: 1)))
        #expect(registry.stream(named: "main")?.variants["360p"] == nil, "only a restore adds a variant")
        #expect(phase == .live)
    }

    @Test func aStreamNotRegisteredTakesNothing() {
        registry.publish(.init(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1, duration: 2)), stream: "other", variant: "720p",
                               playlist: TestPlaylists.live(count: 1)))
        #expect(registry.stream(named: "other") == nil)
    }

    /// Every source but a restore answers the requests held for what its version lists.
    @Test(arguments: [
        ("segment", StreamRegistry.Source.segment("000001.ts", file: File(path: "/d/1.ts", size: 1, duration: 2)), true),
        ("replacement", .replacement("000000-late.ts", file: File(path: "/d/0-late.ts", size: 1, duration: 2)), true),
        ("mirrored", .mirrored(segments: ["000001.ts": File(path: "/d/1.ts", size: 1, duration: 2)], gaps: []), true),
        ("gap", .gap("000001.ts"), true),
        ("playlists", .playlists, true),
        ("restored", .restored(segments: [:], gaps: []), false),
    ])
    func heldRequestsAreAnswered(name: String, source: StreamRegistry.Source, wakes: Bool) async {
        publish(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1, duration: 2)), count: 1)
        let held = Task { await registry.waitUntilListed(stream: "main", variant: "720p", sequence: 1, seconds: 60) }
        while registry.heldRequests == 0 { await Task.yield() }
        publish(source, count: 2)
        #expect((registry.heldRequests == 0) == wakes, "\(name)")
        registry.setPhase(stream: "main", .ended) // answers whatever is still held
        await held.value
    }
}
