import Foundation
import HLSPlaylist
import Testing

/// The match so far as VOD, and time windows of it for clips (issue 11): pure, in milliseconds.
@Suite struct VODRenditionTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Five 2 s entries; discontinuities before entries 1 and 3; a date range on entry 2.
    static func event() -> MediaPlaylist {
        let goal = DateRange(id: "goal", classLabel: "com.example", startDate: start.addingTimeInterval(4))
        let segments = (0..<5).map { (i: Int) -> MediaSegment in
            let date = start.addingTimeInterval(Double(2 * i))
            return MediaSegment(uri: String(format: "%06d.ts", i), duration: 2, programDateTime: date,
                                discontinuity: i == 1 || i == 3, dateRanges: i == 2 ? [goal] : [])
        }
        return MediaPlaylist(targetDuration: 2, segments: segments)
    }

    @Test func theVODRenditionIsTheEventPlaylistEndedAndTypedVOD() {
        let event = Self.event()
        let vod = event.vodRendition.render()
        #expect(vod == event.render().replacingOccurrences(of: "#EXT-X-PLAYLIST-TYPE:EVENT\n", with: "#EXT-X-PLAYLIST-TYPE:VOD\n") + "#EXT-X-ENDLIST\n")
        let parsed = try? MediaPlaylist.parse(vod)
        #expect(parsed?.segments == event.segments && parsed?.playlistType == .vod && parsed?.endList == true)
    }

    func window(_ start: String?, _ end: String?) -> Result<MediaPlaylist, TimeWindow.Rejection> {
        TimeWindow.parse(start: start, end: end).flatMap { Self.event().vodRendition(covering: $0) }
    }

    func uris(_ result: Result<MediaPlaylist, TimeWindow.Rejection>) -> [String] {
        (try? result.get())?.segments.map(\.uri) ?? []
    }

    @Test(arguments: [
        // At entry boundaries: an entry that ends where the window starts, or starts where it
        // ends, is not in it.
        ("2", "6", ["000001.ts", "000002.ts"]),
        // Inside entries: the entries that hold the ends are in, so the clip covers the range.
        ("3", "5", ["000001.ts", "000002.ts"]),
        ("3.999", "4.001", ["000001.ts", "000002.ts"]),
        // Open ends.
        (nil, "2", ["000000.ts"]),
        ("8", nil, ["000004.ts"]),
        (nil, nil, ["000000.ts", "000001.ts", "000002.ts", "000003.ts", "000004.ts"]),
        // Beyond the recording on one side: cut to what exists.
        ("7", "100", ["000003.ts", "000004.ts"]),
        // Program date-times: 2027-01-15T08:00:04.500Z is 4.5 s in, 08:00:09Z is 9 s in.
        ("2027-01-15T08:00:04.500Z", "2027-01-15T08:00:09Z", ["000002.ts", "000003.ts", "000004.ts"]),
        ("2027-01-15T09:00:00+01:00", "2027-01-15T08:00:01.000Z", ["000000.ts"]),
    ] as [(String?, String?, [String])])
    func windowsListTheEntriesThatCoverThem(start: String?, end: String?, expected: [String]) {
        #expect(ProgramDateTime.format(Self.start) == "2027-01-15T08:00:00.000Z")
        #expect(uris(window(start, end)) == expected)
    }

    @Test func aWindowKeepsSequenceNumbersDateRangesAndDiscontinuitiesInStep() throws {
        let clip = try window("6", "10").get()
        #expect(clip.mediaSequence == 3)
        // One discontinuity (before entry 1) was left out; entry 3 keeps its own.
        #expect(clip.discontinuitySequence == 1 && clip.segments.first?.discontinuity == true)
        #expect(clip.playlistType == .vod && clip.endList)
        let text = clip.render()
        #expect(text.contains("#EXT-X-DISCONTINUITY-SEQUENCE:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"))
        #expect(try window("4", "6").get().segments.first?.dateRanges.first?.id == "goal")
    }

    @Test(arguments: [
        ("6", "4", "end must be after start"),
        ("4", "4", "end must be after start"),
        ("11", "20", "outside the recording"),
        ("-3", "4", "start must not be negative"),
        ("yesterday", "4", "start must be a program date-time"),
        ("1", "soon", "end must be a program date-time"),
        ("2027-01-15T07:00:00Z", "2027-01-15T07:30:00Z", "outside the recording"),
    ])
    func badWindowsAreRefusedWithTheReason(start: String, end: String, reason: String) {
        guard case let .failure(rejection) = window(start, end) else {
            Issue.record("\(start)...\(end) was accepted")
            return
        }
        #expect(rejection.message.contains(reason), "\(rejection.message)")
    }

    /// A window that starts after a discontinuity and inside an entry, as written by hand
    /// from RFC 8216 (Golden/vod-window.m3u8).
    @Test func aWindowMatchesItsGoldenFile() throws {
        #expect(try window("2027-01-15T08:00:06.500Z", "10").get().render() == golden("vod-window.m3u8"))
    }

    @Test func anEmptyRecordingHasNoWindow() {
        #expect(throws: TimeWindow.Rejection.self) { try MediaPlaylist(targetDuration: 2).vodRendition(covering: TimeWindow()).get() }
    }
}

/// A window as the query a master passes on to its variants: rendered from the parsed bounds,
/// so the text a client sent never reaches a playlist line (issue 33).
@Suite struct TimeWindowQueryTests {
    @Test(arguments: [
        ("0", "4", "start=0&end=4"),
        ("2.5", nil, "start=2.5"),
        (nil, "0.0000014", "end=0.000001"),
        ("007", "1e1", "start=7&end=10"),
        ("2027-01-15T09:00:02+01:00", nil, "start=2027-01-15T08:00:02.000Z"),
        (nil, nil, ""),
    ] as [(String?, String?, String)])
    func theQueryIsRenderedFromTheBounds(start: String?, end: String?, query: String) throws {
        let window = try TimeWindow.parse(start: start, end: end).get()
        #expect(window.query == query)
        // It reads back as the same window.
        let again = try TimeWindow.parse(start: query.split(separator: "&").first { $0.hasPrefix("start=") }.map { String($0.dropFirst(6)) },
                                         end: query.split(separator: "&").first { $0.hasPrefix("end=") }.map { String($0.dropFirst(4)) }).get()
        #expect(again.query == query)
    }

    /// Two windows one query names are one window: the content is cut by what the query says.
    @Test func windowsWithOneQueryAreOneWindow() throws {
        let a = try TimeWindow.parse(start: "4.0000110", end: nil).get()
        let b = try TimeWindow.parse(start: "4.0000112", end: nil).get()
        #expect(a.query == b.query)
        #expect(a.canonical == b.canonical && a.canonical.query == a.query)
    }
}
