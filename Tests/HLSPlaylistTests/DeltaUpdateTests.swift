import Foundation
import HLSPlaylist
import Testing

/// Playlist Delta Updates (draft-pantos-hls-rfc8216bis §6.2.5.1) against the draft's rules,
/// and expanded the way a client does, byte for byte equal to the full playlist.
@Suite struct DeltaUpdateTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let control = ServerControl(canSkipUntil: 12, canSkipDateRanges: true, canBlockReload: true)

    static func playlist(durations: [Double], dateRangeAt: Set<Int> = [], discontinuityAt: Set<Int> = []) -> MediaPlaylist {
        var time = 0.0
        let segments = durations.enumerated().map { i, duration in
            defer { time += duration }
            return MediaSegment(uri: String(format: "%06d.ts", i), duration: duration, programDateTime: start.addingTimeInterval(time),
                                discontinuity: discontinuityAt.contains(i),
                                dateRanges: dateRangeAt.contains(i) ? [DateRange(id: "span-\(i)", classLabel: DateRange.standInClass, startDate: start.addingTimeInterval(time))] : [])
        }
        return MediaPlaylist(targetDuration: 2, segments: segments)
    }

    @Test(arguments: [
        // 10 entries of 2 s, boundary 12 s: the last six (12 s) are kept, four skipped.
        ([Double](repeating: 2, count: 10), 12.0, 4),
        // Exactly the boundary: nothing ends before it.
        ([Double](repeating: 2, count: 6), 12.0, 0),
        ([Double](repeating: 2, count: 7), 12.0, 1),
        // Shorter than the boundary.
        ([2, 2], 12.0, 0),
        // Uneven: 1.9 s entries need seven to cover 12 s.
        ([Double](repeating: 1.9, count: 10), 12.0, 3),
        ([], 12.0, 0),
    ] as [([Double], Double, Int)])
    func skipBoundary(durations: [Double], boundary: Double, skippable: Int) {
        #expect(Self.playlist(durations: durations).skippableCount(boundary: boundary) == skippable)
    }

    @Test func theDeltaReplacesOlderSegmentsWithOneSkipTag() throws {
        let playlist = Self.playlist(durations: [Double](repeating: 2, count: 10))
        let delta = try #require(playlist.renderDelta(control: Self.control, skippingDateRanges: false))
        let lines = delta.split(separator: "\n")
        #expect(lines.first == "#EXTM3U")
        #expect(lines.contains("#EXT-X-VERSION:9"), "EXT-X-SKIP needs version 9")
        #expect(lines.contains("#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=12,CAN-SKIP-DATERANGES=YES,CAN-BLOCK-RELOAD=YES"))
        #expect(lines.contains("#EXT-X-MEDIA-SEQUENCE:0"), "the header is the full playlist's")
        #expect(lines.filter { $0.hasPrefix("#EXT-X-SKIP") } == ["#EXT-X-SKIP:SKIPPED-SEGMENTS=4"])
        #expect(lines.filter { $0.hasSuffix(".ts") } == (4..<10).map { Substring(String(format: "%06d.ts", $0)) })
        #expect(!delta.contains("#EXT-X-ENDLIST"))
        let v2 = try #require(playlist.renderDelta(control: Self.control, skippingDateRanges: true))
        #expect(v2.contains("#EXT-X-VERSION:10\n"), "RECENTLY-REMOVED-DATERANGES needs version 10")
        #expect(v2.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=4,RECENTLY-REMOVED-DATERANGES=\"\"\n"))
    }

    @Test func nothingToSkipOrNothingOfferedMeansNoDelta() {
        let short = Self.playlist(durations: [2, 2, 2])
        #expect(short.renderDelta(control: Self.control, skippingDateRanges: false) == nil)
        let long = Self.playlist(durations: [Double](repeating: 2, count: 20))
        #expect(long.renderDelta(control: ServerControl(canBlockReload: true), skippingDateRanges: false) == nil)
    }

    @Test func dateRangesOfSkippedSegmentsStayUnlessTheClientAskedV2() throws {
        let playlist = Self.playlist(durations: [Double](repeating: 2, count: 12), dateRangeAt: [1, 9])
        let yes = try #require(playlist.renderDelta(control: Self.control, skippingDateRanges: false))
        #expect(yes.contains("ID=\"span-1\""), "with YES the skipped entry's date range is still sent")
        #expect(yes.contains("ID=\"span-9\""))
        let v2 = try #require(playlist.renderDelta(control: Self.control, skippingDateRanges: true))
        #expect(!v2.contains("ID=\"span-1\""), "with v2 it is skipped with its segment")
        #expect(v2.contains("ID=\"span-9\""), "date ranges inside the boundary are always sent")
        // A server that cannot skip date ranges sends them even to a v2 client.
        var noDateRangeSkipping = Self.control
        noDateRangeSkipping.canSkipDateRanges = false
        let fallback = try #require(playlist.renderDelta(control: noDateRangeSkipping, skippingDateRanges: true))
        #expect(fallback.contains("ID=\"span-1\"") && fallback.contains("#EXT-X-VERSION:9\n"))
    }

    /// A client that held version N of the playlist and reloads with `_HLS_skip` merges the
    /// delta of version N+k into what it has: the result must be version N+k's full text.
    @Test(arguments: [false, true])
    func aDeltaExpandedWithTheClientsCopyIsTheFullPlaylist(v2: Bool) throws {
        let durations = (0..<40).map { $0 % 7 == 3 ? 1.5 : 2.0 }
        let full = Self.playlist(durations: durations, dateRangeAt: [2, 17, 36], discontinuityAt: [5, 30])
        // A client may ask for a delta only while its copy reaches the skip boundary (it
        // reloads at least every half boundary); from there on, any copy expands correctly.
        let skipped = full.skippableCount(boundary: 12)
        #expect(skipped == 33)
        for held in [skipped, skipped + 3, 39, 40] {
            var old = full
            old.segments = Array(full.segments.prefix(held))
            let delta = try #require(full.renderDelta(control: Self.control, skippingDateRanges: v2))
            let expanded = try Self.expand(delta: delta, into: old.render(control: Self.control))
            #expect(expanded == full.render(control: Self.control), "holding \(held) entries")
            #expect(LiveMediaPlaylist(full).text(control: Self.control) == full.render(control: Self.control), "incremental and whole renderings agree")
        }
    }

    /// What a client does (§6.3.5 of the draft): keep the header and the first
    /// SKIPPED-SEGMENTS entries of the playlist it has (each entry with the tags before its
    /// URI), then take the delta's entries; date ranges the delta repeats for skipped entries
    /// are ones the client has already.
    static func expand(delta: String, into previous: String) throws -> String {
        let deltaLines = delta.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let skipLine = try #require(deltaLines.first { $0.hasPrefix("#EXT-X-SKIP:") })
        let count = try #require(Int(skipLine.dropFirst("#EXT-X-SKIP:SKIPPED-SEGMENTS=".count).prefix { $0.isNumber }))
        let previousLines = previous.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // The previous playlist: header, then entries ending with their URI line.
        let entryTags = ["#EXTINF:", "#EXT-X-DATERANGE:", "#EXT-X-PROGRAM-DATE-TIME:"]
        let headerEnd = try #require(previousLines.firstIndex { line in
            !line.hasPrefix("#") || line == "#EXT-X-DISCONTINUITY" || entryTags.contains { line.hasPrefix($0) }
        })
        var kept = Array(previousLines[..<headerEnd])
        var uris = 0
        var index = headerEnd
        while uris < count, index < previousLines.count {
            let line = previousLines[index]
            kept.append(line)
            if !line.hasPrefix("#"), !line.isEmpty { uris += 1 }
            index += 1
        }
        let keptSet = Set(kept)
        let afterSkip = deltaLines.drop { !$0.hasPrefix("#EXT-X-SKIP:") }.dropFirst()
        let rest = afterSkip.filter { !($0.hasPrefix("#EXT-X-DATERANGE") && keptSet.contains($0)) }
        return (kept + rest).joined(separator: "\n")
    }
}
