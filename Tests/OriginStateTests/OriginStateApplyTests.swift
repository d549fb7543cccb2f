import Foundation
import HLSPlaylist
import OriginPolicy
import OriginState
import SidelineTesting
import Testing

/// `OriginState.apply`, the one way into what the origin publishes: what each change adds to
/// the index, what it counts for `/api/streams`, whether it is the variant's last publication,
/// the stream's phase, and what it asks the registry to render and answer. Plain values: each
/// row runs in microseconds.
@Suite struct OriginStateApplyTests {
    typealias File = OriginState.SegmentFile
    var state = OriginState()
    var now = 1000.0

    init() {
        state.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2), now: now)
    }

    var variant: OriginState.Variant? { state.stream(named: "main")?.variants["720p"] }
    var phase: OriginState.Phase? { state.stream(named: "main")?.phase }
    /// What `/api/streams` counts: segments, seconds, bytes, the peak bit rate.
    var counted: [Double]? { variant.map { [Double($0.status.recorded.segments), $0.status.recorded.duration, Double($0.status.recorded.bytes), $0.status.recorded.peakBitRate] } }

    @discardableResult
    mutating func publish(_ source: OriginChange.Source, count: Int, iFrames: Bool = false, variant: String = "720p") -> [OriginEffect] {
        state.apply(.publish(.init(source, stream: "main", variant: variant, playlist: TestPlaylists.live(count: count),
                                   iFrames: iFrames ? TestPlaylists.live(count: count) : nil)), now: now)
    }

    @Test mutating func aSegmentIsIndexedCountedTheLastPublicationAndMakesTheStreamLive() {
        #expect(phase == .starting)
        publish(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1000, duration: 2)), count: 1)
        now += 3
        let effects = publish(.segment("000001.ts", file: File(path: "/d/1.ts", size: 500, duration: 1)), count: 2, iFrames: true)
        #expect(variant?.segments == ["000000.ts": File(path: "/d/0.ts", size: 1000, duration: 2), "000001.ts": File(path: "/d/1.ts", size: 500, duration: 1)])
        #expect(counted == [2, 3, 1500, 4000])
        #expect(variant?.status.lastPublished == 1003)
        #expect(variant?.lastSequence == 1 && variant?.iFrames?.segments.count == 2)
        #expect(phase == .live)
        let (version, iFramesVersion) = (variant?.version ?? 0, variant?.iFramesVersion ?? 0)
        #expect(effects == [.renderVariant(stream: "main", variant: "720p", version: version, markers: [], wake: true),
                            .renderIFrames(stream: "main", variant: "720p", version: iFramesVersion)])
    }

    @Test mutating func everyVersionIsNewerThanEveryOneBefore() {
        var seen: [Int] = []
        for i in 0..<3 {
            publish(.segment(String(format: "%06d.ts", i), file: File(path: "/d/\(i).ts", size: 1, duration: 2)), count: i + 1, iFrames: true)
            seen += [variant?.version ?? 0, variant?.iFramesVersion ?? 0]
        }
        state.apply(.master(stream: "main", .parsed("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n720p/index.m3u8\n")), now: now)
        seen.append(state.stream(named: "main")?.masterVersion ?? 0)
        #expect(seen == seen.sorted() && Set(seen).count == seen.count && state.revision == seen.last)
        // Registered again: the stream starts afresh, after every version of the one it replaces.
        state.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2), now: now)
        #expect((state.stream(named: "main")?.registered ?? 0) > seen.last! && variant?.recording == nil && phase == .starting)
    }

    @Test mutating func aReplacementIsServedButNeitherCountedNorANewPublication() {
        publish(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1000, duration: 2)), count: 1, iFrames: true)
        let before = variant?.status
        now += 5
        let effects = publish(.replacement("000000-late.ts", file: File(path: "/d/0-late.ts", size: 900, duration: 2)), count: 1)
        #expect(variant?.segments["000000-late.ts"] == File(path: "/d/0-late.ts", size: 900, duration: 2))
        #expect(variant?.status == before, "its slot was counted when it was filled")
        #expect(variant?.iFrames != nil && effects.count == 1, "no I-frame playlist given: the one held stays, nothing to render")
    }

    @Test mutating func aReplacementDoesNotMakeAStartingStreamLive() {
        publish(.replacement("000000-late.ts", file: File(path: "/d/0-late.ts", size: 900, duration: 2)), count: 1)
        #expect(phase == .starting)
    }

    @Test mutating func aGapIsListedAndIsTheLastPublicationWithNothingCounted() {
        now += 7
        publish(.gap("000000.ts"), count: 1)
        #expect(variant?.gaps == ["000000.ts"] && variant?.segments.isEmpty == true)
        #expect(counted == [0, 0, 0, 0] && variant?.status.lastPublished == 1007)
        #expect(phase == .starting, "a gap alone does not make the stream live")
    }

    @Test mutating func aMirroredBatchIsOneVersionCountedWhenItBringsSomething() {
        publish(.mirrored(segments: ["000000.ts": File(path: "/m/0.ts", size: 100, duration: 2), "000002.ts": File(path: "/m/2.ts", size: 300, duration: 2)],
                          gaps: ["000001.ts"]), count: 3, iFrames: true)
        #expect(variant?.segments.count == 2 && variant?.gaps == ["000001.ts"])
        #expect(counted == [2, 4, 400, 1200])
        #expect(variant?.status.lastPublished == 1000 && variant?.lastSequence == 2 && variant?.iFrames != nil)
        now += 4
        publish(.mirrored(segments: [:], gaps: []), count: 3)
        #expect(variant?.status.lastPublished == 1000, "an empty batch is not a publication")
        #expect(phase == .starting, "the mirror sets its phase itself (following, upstream lost)")
    }

    @Test mutating func newPlaylistsListNothingNewAndKeepTheIFramesHeld() {
        publish(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1000, duration: 2)), count: 1, iFrames: true)
        let before = variant?.status
        now += 9
        state.apply(.publish(.init(.playlists, stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 1, ended: true))), now: now)
        #expect(variant?.status == before && variant?.segments.count == 1)
        #expect(variant?.recording?.endList == true && variant?.iFrames != nil)
    }

    @Test mutating func aRestoreReplacesTheVariantWholeAndCountsItsFiles() {
        publish(.segment("000009.ts", file: File(path: "/d/9.ts", size: 1, duration: 2)), count: 1, iFrames: true)
        state.apply(.failure(stream: "main", variant: "720p", "x264 said no"), now: now)
        state.apply(.writeError(stream: "main", variant: "720p", "disk full"), now: now)
        state.apply(.effort(stream: "main", variant: "720p", step: 1, name: "veryfast"), now: now)
        let effects = publish(.restored(segments: ["000000.ts": File(path: "/d/0.ts", size: 250, duration: 2)], gaps: ["000001.ts"]), count: 2)
        #expect(variant?.segments == ["000000.ts": File(path: "/d/0.ts", size: 250, duration: 2)] && variant?.gaps == ["000001.ts"])
        #expect(counted == [1, 2, 250, 1000])
        let status = variant?.status
        #expect(status?.failure == nil && status?.writeError == nil && status?.effortStep == 0 && status?.effortName == nil,
                "nothing of what this run noted survives a restore")
        #expect(status?.lastPublished == nil, "a restore is no publication of this run")
        #expect(variant?.iFrames == nil, "restored without an I-frame playlist: none")
        #expect(phase == .live, "a restore leaves the phase as it was (the restorer sets it)")
        // Nothing waits on a start; the I-frame playlist is rendered as none.
        #expect(effects == [.renderVariant(stream: "main", variant: "720p", version: variant?.version ?? 0, markers: [], wake: false),
                            .renderIFrames(stream: "main", variant: "720p", version: variant?.iFramesVersion ?? 0)])
    }

    @Test mutating func aRestoreCanAddAVariantTheStreamWasNotRegisteredWith() {
        publish(.restored(segments: [:], gaps: []), count: 1, variant: "1080p")
        #expect(state.stream(named: "main")?.variants["1080p"]?.lastSequence == 0)
        let effects = publish(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1, duration: 2)), count: 1, variant: "360p")
        #expect(state.stream(named: "main")?.variants["360p"] == nil && effects.isEmpty, "only a restore adds a variant")
        #expect(phase == .starting)
    }

    @Test mutating func aStreamNotRegisteredTakesNothing() {
        let changes: [OriginChange] = [
            .publish(.init(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1, duration: 2)), stream: "other", variant: "720p", playlist: TestPlaylists.live(count: 1))),
            .master(stream: "other", .parsed("#EXTM3U\n")), .phase(stream: "other", .ended), .markers(stream: "other", []),
            .metadata(stream: "other", title: "t", description: "", keywords: ""), .failure(stream: "other", variant: "720p", "x"),
        ]
        for change in changes { #expect(state.apply(change, now: now).isEmpty) }
        #expect(state.stream(named: "other") == nil && state.revision == 1)
    }

    /// New markers: every variant with a recording rendered again with them, best rung first;
    /// a variant with nothing recorded has nothing to render.
    @Test mutating func markersRenderEveryRecordedVariantAgain() {
        state.apply(.register(stream: "main", variants: ["1080p", "720p", "360p"], targetDuration: 2), now: now)
        publish(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1, duration: 2)), count: 1)
        publish(.segment("000000.ts", file: File(path: "/d/0.ts", size: 1, duration: 2)), count: 1, variant: "1080p")
        let marker = Marker(id: "goal", label: "Goal", time: Date(timeIntervalSince1970: 1_800_000_001), created: Date(timeIntervalSince1970: 1_800_000_009), listedBefore: 1)
        let effects = state.apply(.markers(stream: "main", [marker]), now: now)
        let stream = state.stream(named: "main")
        #expect(stream?.markers == [marker])
        #expect(effects == [
            .renderVariant(stream: "main", variant: "1080p", version: stream?.variants["1080p"]?.version ?? 0, markers: [marker], wake: true),
            .renderVariant(stream: "main", variant: "720p", version: stream?.variants["720p"]?.version ?? 0, markers: [marker], wake: true),
        ])
        // A publication after them renders with them.
        #expect(publish(.gap("000001.ts"), count: 2).first == .renderVariant(stream: "main", variant: "720p", version: variant?.version ?? 0, markers: [marker],
                                                                            wake: true))
    }

    /// Ended or removed: the held requests are answered, since nothing more will be listed.
    @Test(arguments: OriginState.Phase.allCases)
    func aPhaseReleasesTheHeldRequestsOnlyWhenTheStreamStopsChanging(phase: OriginState.Phase) {
        var state = self.state
        let effects = state.apply(.phase(stream: "main", phase), now: now)
        #expect(state.stream(named: "main")?.phase == phase)
        #expect(effects == (phase == .ended || phase == .removed ? [.releaseHeld(stream: "main")] : []), "\(phase)")
    }

    @Test mutating func statusNotesAreKeptWithTheVariant() {
        state.apply(.effort(stream: "main", variant: "720p", step: 2, name: "superfast"), now: now)
        state.apply(.writeError(stream: "main", variant: "720p", "No space left on device"), now: now)
        #expect(variant?.status.effortStep == 2 && variant?.status.effortName == "superfast" && variant?.status.writeError == "No space left on device")
        state.apply(.effort(stream: "main", variant: "720p", step: 0, name: "veryfast"), now: now)
        state.apply(.writeError(stream: "main", variant: "720p", nil), now: now)
        #expect(variant?.status.effortStep == 0 && variant?.status.effortName == nil && variant?.status.writeError == nil)
        state.apply(.metadata(stream: "main", title: "Home", description: "Main stand", keywords: "cup"), now: now)
        #expect(state.stream(named: "main").map { [$0.title, $0.description, $0.keywords] } == ["Home", "Main stand", "cup"])
    }
}
