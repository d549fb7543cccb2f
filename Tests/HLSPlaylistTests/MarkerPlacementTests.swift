import Foundation
import HLSPlaylist
import Testing

/// Markers as EXT-X-DATERANGE: how they render and parse, and where they go in a live
/// playlist (appended only) and in a VOD rendition (by the moment they mark).
@Suite struct MarkerPlacementTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// `count` 2 s entries from `start`, sequence numbers from `first`.
    func playlist(count: Int, first: Int = 0) -> MediaPlaylist {
        MediaPlaylist(targetDuration: 2, mediaSequence: first, segments: (0..<count).map { i in
            MediaSegment(uri: "\(first + i).ts", duration: 2, programDateTime: Self.start.addingTimeInterval(Double(2 * i)))
        })
    }

    func marker(_ id: String, at seconds: Double, listedBefore: Int, duration: Double? = nil) -> Marker {
        Marker(id: id, label: "Try, left wing", time: Self.start.addingTimeInterval(seconds), duration: duration, author: "Sam", colour: "#e0a030",
               created: Self.start.addingTimeInterval(100), listedBefore: listedBefore)
    }

    @Test func aMarkerRendersAsADateRangeOfSidelinesClass() {
        let line = marker("m-1", at: 3, listedBefore: 2, duration: 20).dateRange.render()
        #expect(line == "#EXT-X-DATERANGE:ID=\"m-1\",CLASS=\"com.sideline.marker\",START-DATE=\"2027-01-15T08:00:03.000Z\",DURATION=20.000,"
            + "X-AUTHOR=\"Sam\",X-COLOUR=\"#e0a030\",X-LABEL=\"Try, left wing\"\n")
    }

    @Test func clientAttributesAndDurationSurviveParsing() throws {
        let range = marker("m-1", at: 3, listedBefore: 2, duration: 20).dateRange
        let text = String(range.render().dropFirst("#EXT-X-DATERANGE:".count).dropLast())
        #expect(DateRange.parse(attributes: text) == range)
        #expect(DateRange.parse(attributes: "ID=\"a\",START-DATE=\"2027-01-15T08:00:03.000Z\",DURATION=-1") == nil)
    }

    @Test func liveMarkersGoBeforeTheEntryPublishedAfterThemOrAtTheEnd() throws {
        let placed = playlist(count: 4).placingLive([marker("early", at: 1, listedBefore: 2), marker("pending", at: 7, listedBefore: 4)])
        #expect(placed.segments[2].dateRanges.map(\.id) == ["early"])
        #expect(placed.trailingDateRanges.map(\.id) == ["pending"])
        let text = placed.render()
        #expect(text.hasSuffix("3.ts\n" + marker("pending", at: 7, listedBefore: 4).dateRange.render()))
        // What a player already read stays a prefix when the next entry arrives: appended only.
        var grown = playlist(count: 5)
        grown.segments[4].uri = "4.ts"
        let next = grown.placingLive([marker("early", at: 1, listedBefore: 2), marker("pending", at: 7, listedBefore: 4)]).render()
        #expect(next.hasPrefix(text))
        // Parsed back, the pending marker is a trailing date range again.
        #expect(try MediaPlaylist.parse(text).trailingDateRanges.map(\.id) == ["pending"])
    }

    /// Where a pending marker stood in the text is where it stays once its entry comes: after
    /// the ranges that were trailing with it (a replacement), before the entry's own.
    @Test func aMarkerKeepsItsPlaceWhenItsEntryComesWithRangesOfItsOwn() throws {
        let replacement = DateRange(id: "replacement-2.ts", classLabel: SegmentReplacement.dateRangeClass, startDate: Self.start.addingTimeInterval(4))
        let own = DateRange(id: "own-4", classLabel: "com.example", startDate: Self.start.addingTimeInterval(8))
        var live = LiveMediaPlaylist(playlist(count: 4))
        live.appendTrailing(replacement)
        let pending = [marker("pending", at: 7, listedBefore: 4), marker("second", at: 7.5, listedBefore: 4)]
        let before = live.playlist.placingLive(pending).render()
        live.append(MediaSegment(uri: "4.ts", duration: 2, programDateTime: Self.start.addingTimeInterval(8), dateRanges: [own]))
        let placed = live.playlist.placingLive(pending)
        #expect(placed.segments[4].dateRanges.map(\.id) == ["replacement-2.ts", "pending", "second", "own-4"])
        #expect(placed.render().hasPrefix(before))
    }

    /// A marker added while the next entry's parts were out is listed before the entry after it:
    /// until the next entry is listed, it is not shown at all (nothing goes before published lines).
    @Test func aMarkerBeyondTheNextEntryWaitsForIt() {
        let waiting = marker("waiting", at: 7, listedBefore: 5)
        #expect(playlist(count: 4).placingLive([waiting]).render() == playlist(count: 4).render())
        #expect(playlist(count: 5).placingLive([waiting]).trailingDateRanges.map(\.id) == ["waiting"])
        #expect(playlist(count: 6).placingLive([waiting]).segments[5].dateRanges.map(\.id) == ["waiting"])
    }

    @Test func aMarkerListedBeforeTheWindowOfAPlaylistGoesOnItsFirstEntry() {
        let placed = playlist(count: 3, first: 10).placingLive([marker("old", at: 0, listedBefore: 4)])
        #expect(placed.segments[0].dateRanges.map(\.id) == ["old"])
    }

    @Test func vodPlacesMarkersByTheMomentTheyMark() throws {
        let markers = [marker("late", at: 7.5, listedBefore: 9), marker("before", at: -5, listedBefore: 1), marker("edge", at: 4, listedBefore: 9)]
        let placed = playlist(count: 5).placingByTime(markers)
        #expect(placed.segments[0].dateRanges.map(\.id) == ["before"])
        #expect(placed.segments[2].dateRanges.map(\.id) == ["edge"])
        #expect(placed.segments[3].dateRanges.map(\.id) == ["late"])
        #expect(placed.trailingDateRanges.isEmpty)
        // A window keeps the markers of the entries it keeps.
        let window = try placed.vodRendition(covering: TimeWindow(start: .offset(6), end: .offset(8))).get()
        #expect(window.segments.flatMap(\.dateRanges).map(\.id) == ["late"])
    }

    @Test func deltaUpdatesCarryPendingMarkers() throws {
        let placed = playlist(count: 20).placingLive([marker("pending", at: 38, listedBefore: 20)])
        let delta = try #require(placed.renderDelta(control: ServerControl(canSkipUntil: 12, canSkipDateRanges: true), skippingDateRanges: true))
        #expect(delta.hasSuffix("19.ts\n" + marker("pending", at: 38, listedBefore: 20).dateRange.render()))
    }

    @Test func offsetsAndSpansComeFromProgramDateTimes() throws {
        let recording = playlist(count: 3)
        #expect(PlaylistTimes(recording).offset(of: Self.start.addingTimeInterval(3.25)) == 3.25)
        #expect(PlaylistTimes(recording).dateSpan == Self.start...Self.start.addingTimeInterval(6))
        let span = try PlaylistTimes(recording).resolve(TimeWindow(start: .offset(3), end: .offset(5))).get()
        #expect(span.entries == 1...2 && span.start == 1 && span.end == 3)
        #expect(span.startDate == Self.start.addingTimeInterval(3))
    }
}
