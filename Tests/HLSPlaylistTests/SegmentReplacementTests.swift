import Foundation
import HLSPlaylist
import Testing

/// A late segment in a stand-in's place: the live playlist only grows (the replacement is an
/// appended date range), the recording's view swaps the entry, and both survive parsing.
@Suite struct SegmentReplacementTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Four 2 s entries; the second and third are stand-ins after a discontinuity, the fourth
    /// a GAP.
    func recording() -> MediaPlaylist {
        MediaPlaylist(targetDuration: 2, segments: [
            MediaSegment(uri: "000000.ts", duration: 2, programDateTime: Self.start),
            MediaSegment(uri: "000001.ts", duration: 2, programDateTime: Self.start.addingTimeInterval(2), discontinuity: true),
            MediaSegment(uri: "000002.ts", duration: 2, programDateTime: Self.start.addingTimeInterval(4)),
            MediaSegment(uri: "000003.ts", duration: 2, programDateTime: Self.start.addingTimeInterval(6), gap: true),
        ])
    }

    func replacement(_ entry: Int, duration: Double = 2.002, keyframe: MediaSegment.ByteRange? = .init(length: 188 * 30, offset: 0)) -> SegmentReplacement {
        let uri = String(format: "%06d.ts", entry)
        return SegmentReplacement(replaces: uri, uri: SegmentReplacement.fileName(replacing: uri), duration: duration,
                                  startDate: Self.start.addingTimeInterval(Double(2 * entry)), keyframe: keyframe)
    }

    @Test func itRendersAsADateRangeOfSidelinesClassAndReadsBack() throws {
        let line = replacement(1).dateRange.render()
        #expect(line == "#EXT-X-DATERANGE:ID=\"replacement-000001.ts\",CLASS=\"com.sideline.replacement\",START-DATE=\"2027-01-15T08:00:02.000Z\","
            + "DURATION=2.002,X-KEYFRAME=\"5640@0\",X-REPLACES=\"000001.ts\",X-URI=\"000001-late.ts\"\n")
        let parsed = try #require(DateRange.parse(attributes: String(line.dropFirst("#EXT-X-DATERANGE:".count).dropLast())))
        #expect(SegmentReplacement(parsed) == replacement(1))
        #expect(SegmentReplacement(DateRange(id: "m", classLabel: Marker.dateRangeClass, startDate: Self.start)) == nil, "a marker is no replacement")
        var broken = replacement(1).dateRange
        broken.clientAttributes["X-KEYFRAME"] = "5640"
        #expect(SegmentReplacement(broken) == nil)
    }

    @Test func theLivePlaylistOnlyGrowsWhileTheRecordingTakesTheRealSegment() throws {
        var live = LiveMediaPlaylist(recording())
        let before = live.text
        live.appendTrailing(replacement(1).dateRange)
        live.appendTrailing(replacement(3).dateRange)
        #expect(live.text.hasPrefix(before), "an EVENT playlist may only have lines appended (RFC 8216 §6.2.1)")
        #expect(live.text == live.playlist.render(), "the incremental text is the rendering")
        live.append(MediaSegment(uri: "000004.ts", duration: 2, programDateTime: Self.start.addingTimeInterval(8)))
        #expect(live.text == live.playlist.render())
        #expect(live.playlist.segments[4].dateRanges.map(\.id) == ["replacement-000001.ts", "replacement-000003.ts"])
        // Parsing the text gives the same model back: what is on disk is enough to restart.
        #expect(try MediaPlaylist.parse(live.text) == live.playlist)

        let recorded = live.playlist.applyingReplacements()
        #expect(recorded.segments.map(\.uri) == ["000000.ts", "000001-late.ts", "000002.ts", "000003-late.ts", "000004.ts"])
        #expect(recorded.segments.map(\.duration) == [2, 2.002, 2, 2.002, 2])
        #expect(recorded.segments.map(\.gap) == [false, false, false, false, false], "a replaced GAP is a segment")
        #expect(recorded.segments[1].discontinuity, "seams stay as listed")
        #expect(recorded.segments.allSatisfy { $0.dateRanges.isEmpty }, "the replacement ranges are not part of the recording's view")
        #expect(recording().applyingReplacements() == recording(), "nothing replaced, nothing changed")
    }

    @Test func aTrailingReplacementCountsBeforeTheNextEntryExists() {
        var live = LiveMediaPlaylist(recording())
        live.appendTrailing(replacement(2).dateRange)
        #expect(live.playlist.replacements.keys.sorted() == ["000002.ts"])
        #expect(live.playlist.applyingReplacements().segments[2].uri == "000002-late.ts")
        #expect(live.playlist.applyingReplacements().trailingDateRanges.isEmpty)
    }

    /// A GAP entry written without a date takes its date from the last dated entry before it
    /// (the replacement's START-DATE), as the VOD windows count it.
    @Test func anUndatedEntrysDateIsCarriedOn() {
        var playlist = recording()
        playlist.segments[3].programDateTime = nil
        #expect(PlaylistTimes(playlist).programDateTime(ofEntry: 3) == Self.start.addingTimeInterval(6))
        #expect(PlaylistTimes(playlist).programDateTime(ofEntry: 1) == Self.start.addingTimeInterval(2))
        #expect(PlaylistTimes(MediaPlaylist(targetDuration: 2, segments: [MediaSegment(uri: "a.ts", duration: 2)])).programDateTime(ofEntry: 0) == nil)
        #expect(PlaylistTimes(playlist).programDateTime(ofEntry: 9) == nil)
    }

    @Test func anEntryIsReplacedOnceTheFirstReplacementWins() {
        var playlist = recording()
        playlist.trailingDateRanges = [replacement(1).dateRange, replacement(1, duration: 1.5).dateRange]
        #expect(playlist.applyingReplacements().segments[1].duration == 2.002)
    }

    @Test func theIFramePlaylistPointsAtTheRealSegmentsKeyframeWhereTheEntryLies() {
        var media = recording()
        media.trailingDateRanges = [replacement(1).dateRange, replacement(3, keyframe: .init(length: 376, offset: 188)).dateRange]
        let iFrames = MediaPlaylist(version: 4, targetDuration: 2, iFramesOnly: true, segments: [
            MediaSegment(uri: "000000.ts", duration: 2, byteRange: .init(length: 100, offset: 0)),
            MediaSegment(uri: "000001.ts", duration: 2, discontinuity: true, byteRange: .init(length: 200, offset: 0)),
            MediaSegment(uri: "000002.ts", duration: 2, byteRange: .init(length: 200, offset: 0)),
        ])
        let applied = iFrames.applyingReplacements(of: media)
        #expect(applied.segments.map(\.uri) == ["000000.ts", "000001-late.ts", "000002.ts", "000003-late.ts"])
        #expect(applied.segments.map(\.byteRange) == [.init(length: 100, offset: 0), .init(length: 5640, offset: 0), .init(length: 200, offset: 0),
                                                      .init(length: 376, offset: 188)])
        #expect(applied.segments[1].discontinuity)
        #expect(iFrames.applyingReplacements(of: recording()) == iFrames)
    }
}

/// After a restart, which recorded entries a late segment may still replace: stand-ins and
/// siblings' copies (by their spans) and GAP entries, not real segments, not replaced ones.
@Suite struct ReplaceableEntriesTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    func entry(_ index: Int, seam: Bool = false, gap: Bool = false, ranges: [DateRange] = []) -> MediaSegment {
        MediaSegment(uri: String(format: "%06d.ts", index), duration: 2, programDateTime: Self.start.addingTimeInterval(Double(index) * 2),
                     discontinuity: seam, gap: gap, dateRanges: ranges)
    }

    func span(_ id: String, _ classLabel: String = DateRange.standInClass, closed: Bool = false) -> DateRange {
        DateRange(id: id, classLabel: classLabel, startDate: Self.start, endDate: closed ? Self.start.addingTimeInterval(10) : nil)
    }

    @Test func fillSpansAndGapsAreReplaceableRealSegmentsAreNot() {
        let playlist = MediaPlaylist(targetDuration: 2, segments: [
            entry(0),
            entry(1, seam: true, ranges: [span("s1")]), entry(2),
            entry(3, seam: true, ranges: [span("s1", closed: true)]),
            entry(4, gap: true),
            entry(5, seam: true, ranges: [span("c1", DateRange.siblingFillClass)]),
            // A process stopped inside a span; the next one starts with a real segment.
            entry(6, seam: true), entry(7),
            entry(8, seam: true, ranges: [span("s2")]),
        ])
        #expect(playlist.replaceableEntries == [1, 2, 4, 5, 8])
        var replaced = playlist
        replaced.trailingDateRanges = [SegmentReplacement(replaces: "000002.ts", uri: "000002-late.ts", duration: 2, startDate: Self.start, keyframe: nil).dateRange]
        #expect(replaced.replaceableEntries == [1, 4, 5, 8], "replaced once, never again")
    }
}
