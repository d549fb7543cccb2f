import Foundation
import HLSPlaylist
import StreamMirroring
import Testing

struct MirrorListingTests {
    let start = Date(timeIntervalSince1970: 1_790_000_000)

    func upstream(_ count: Int, gapAt gaps: Set<Int> = [], discontinuityAt seams: Set<Int> = [], ended: Bool = false) -> MediaPlaylist {
        let segments = (0..<count).map { index in
            MediaSegment(uri: String(format: "%06d.ts", index), duration: 2, programDateTime: start.addingTimeInterval(Double(index) * 2),
                         discontinuity: seams.contains(index), gap: gaps.contains(index))
        }
        return MediaPlaylist(targetDuration: 2, playlistType: .event, segments: segments, endList: ended)
    }

    func names(_ range: Range<Int>) -> Set<String> { Set(range.map { String(format: "%06d.ts", $0) }) }

    @Test func listsTheHeldPrefixAndFetchesTheRestInOrder() {
        let listing = MirrorListing(upstream: upstream(6), held: names(0..<3).union(names(4..<5)))
        #expect(listing.playlist.segments.map(\.uri) == ["000000.ts", "000001.ts", "000002.ts"], "stops before the first segment it does not hold")
        #expect(listing.downloads.map(\.uri) == ["000003.ts", "000005.ts"])
        #expect(!listing.caughtUp)
        #expect(listing.playlist.segments == Array(upstream(6).segments.prefix(3)), "entries are the upstream's, dates and all")
    }

    /// Markers reach a mirror as the upstream's playlists carry them: a DATERANGE on a listed
    /// entry comes along with it; a pending one (after the last entry) too, once caught up.
    @Test func markersComeAlongWithTheEntries() throws {
        let marker = Marker(id: "m-1", label: "Try", time: start.addingTimeInterval(3), created: start.addingTimeInterval(9), listedBefore: 2)
        let pending = Marker(id: "m-2", label: "Later", time: start.addingTimeInterval(7), created: start.addingTimeInterval(9), listedBefore: 4)
        let text = upstream(4).placingLive([marker, pending]).render()
        let listing = MirrorListing(upstream: try MediaPlaylist.parse(text), held: names(0..<4))
        #expect(listing.playlist.segments[2].dateRanges == [marker.dateRange])
        #expect(listing.playlist.trailingDateRanges == [pending.dateRange])
        #expect(listing.playlist.render() == text)
    }

    /// A pushed backlog's late segment replaces a stand-in in the upstream's recording: the
    /// mirror fetches its file before it lists the entry that carries the replacement, so its
    /// own recording takes the real segment too; one the upstream lost is left out.
    @Test func lateSegmentsThatReplaceStandInsAreFetchedBeforeTheirRangeIsListed() throws {
        let late = SegmentReplacement(replaces: "000001.ts", uri: "000001-late.ts", duration: 2, startDate: start.addingTimeInterval(2), keyframe: nil)
        let later = SegmentReplacement(replaces: "000002.ts", uri: "000002-late.ts", duration: 2, startDate: start.addingTimeInterval(4), keyframe: nil)
        var live = LiveMediaPlaylist(upstream(3))
        live.appendTrailing(late.dateRange)
        live.append(upstream(4).segments[3])
        live.appendTrailing(later.dateRange)
        let text = live.text
        let playlist = try MediaPlaylist.parse(text)

        let waiting = MirrorListing(upstream: playlist, held: names(0..<4))
        #expect(waiting.downloads.map(\.uri) == ["000001-late.ts", "000002-late.ts"])
        #expect(waiting.playlist.segments.count == 3, "the entry carrying a replacement waits for its file")
        #expect(waiting.playlist.replacements.isEmpty)

        let caughtUp = MirrorListing(upstream: playlist, held: names(0..<4).union(["000001-late.ts", "000002-late.ts"]))
        #expect(caughtUp.caughtUp)
        #expect(caughtUp.playlist.render() == text, "the mirror's playlist is the upstream's, line for line")
        #expect(caughtUp.playlist.applyingReplacements().segments.map(\.uri) == ["000000.ts", "000001-late.ts", "000002-late.ts", "000003.ts"])

        let lost = MirrorListing(upstream: playlist, held: names(0..<4).union(["000002-late.ts"]), lost: ["000001-late.ts"])
        #expect(lost.caughtUp)
        #expect(lost.playlist.applyingReplacements().segments.map(\.uri) == ["000000.ts", "000001.ts", "000002-late.ts", "000003.ts"])
    }

    @Test func gapsNeedNoFileAndLostSegmentsBecomeGaps() {
        let listing = MirrorListing(upstream: upstream(5, gapAt: [1]), held: names(0..<1).union(names(3..<5)), lost: names(2..<3))
        #expect(listing.caughtUp)
        #expect(listing.playlist.segments.map(\.gap) == [false, true, true, false, false])
    }

    @Test func neverCarriesTheUpstreamsEndListItself() {
        let listing = MirrorListing(upstream: upstream(2, ended: true), held: names(0..<2))
        #expect(!listing.playlist.endList, "the mode decides EXT-X-ENDLIST")
        #expect(listing.caughtUp)
    }

    @Test func iFramesFollowTheListedSegmentsOnly() {
        var iFrames = upstream(4)
        iFrames.iFramesOnly = true
        iFrames.segments = iFrames.segments.map { var e = $0; e.byteRange = .init(length: 376, offset: 564); e.programDateTime = nil; return e }
        let listing = MirrorListing(upstream: upstream(4, gapAt: [1]), held: names(0..<1).union(names(2..<3)))
        #expect(listing.iFrames(from: iFrames).segments.map(\.uri) == ["000000.ts", "000002.ts"])
    }

    @Test func aRecordingThatOnlyGrewCanBeFollowed() {
        let held = MirrorListing(upstream: upstream(3), held: names(0..<3)).playlist
        #expect(MirrorListing.conflict(mirrored: held, upstream: upstream(9)) == nil)
        #expect(MirrorListing.conflict(mirrored: held, upstream: upstream(3)) == nil)
    }

    @Test func aDifferentRecordingUnderTheSameNameIsNamedAsSuch() {
        let held = MirrorListing(upstream: upstream(3), held: names(0..<3)).playlist
        #expect(MirrorListing.conflict(mirrored: held, upstream: upstream(2))?.contains("fewer") == true)
        #expect(MirrorListing.conflict(mirrored: held, upstream: upstream(5, discontinuityAt: [1]))?.contains("entry 1 differs") == true)
        var longer = upstream(5)
        longer.targetDuration = 4
        #expect(MirrorListing.conflict(mirrored: held, upstream: longer)?.contains("TARGETDURATION") == true)
        var moved = upstream(5)
        moved.segments[2].programDateTime = start.addingTimeInterval(3600)
        #expect(MirrorListing.conflict(mirrored: held, upstream: moved)?.contains("entry 2") == true)
    }
}
