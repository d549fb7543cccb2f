import Foundation
import HLSPlaylist
import Testing

/// The recording's view of a pushed stream after a cut: late segments that replaced the
/// stand-ins take the stand-in span's EXT-X-DATERANGE with them (the footage there is real),
/// and what is still a stand-in keeps a span of its own, opened and closed where it lies.
@Suite struct FillSpanReplacementTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static func date(_ entry: Int) -> Date { start.addingTimeInterval(Double(entry) * 2) }
    static func id(_ entry: Int) -> String { "stand-in-720p-" + ProgramDateTime.format(date(entry)) }

    /// A 20 s cut: entry 0 real, entries 1 to 10 stand-ins (one span, opened on 1, closed on 11
    /// when the pusher came back), 11 and 12 real. `closed: false`: the process stopped during
    /// the cut and the next one started with a real segment after a seam.
    func cut(closed: Bool = true) -> MediaPlaylist {
        let span = DateRange.init(id: Self.id(1), classLabel: DateRange.standInClass, startDate: Self.date(1))
        var closing = span
        closing.endDate = Self.date(11)
        return MediaPlaylist(targetDuration: 2, segments: (0...12).map { index in
            MediaSegment(uri: String(format: "%06d.ts", index), duration: 2, programDateTime: Self.date(index),
                         discontinuity: index == 1 || index == 11, dateRanges: index == 1 ? [span] : index == 11 && closed ? [closing] : [])
        })
    }

    func replacing(_ entries: some Sequence<Int>, in playlist: MediaPlaylist) -> MediaPlaylist {
        var replaced = playlist
        replaced.trailingDateRanges = entries.map { entry in
            let uri = String(format: "%06d.ts", entry)
            return SegmentReplacement(replaces: uri, uri: SegmentReplacement.fileName(replacing: uri), duration: 2, startDate: Self.date(entry), keyframe: nil).dateRange
        }
        return replaced
    }

    /// Where each stand-in range lies in the recording's view: (entry, ID, START-DATE's entry, END-DATE's entry).
    func standInRanges(_ playlist: MediaPlaylist) -> [Row] {
        playlist.segments.enumerated().flatMap { index, entry in
            entry.dateRanges.filter { $0.classLabel == DateRange.standInClass }.map { range in
                Row(entry: index, id: range.id, start: range.startDate, end: range.endDate)
            }
        }
    }

    struct Row: Equatable, CustomStringConvertible {
        var entry: Int, id: String, start: Date, end: Date?
        init(entry: Int, id: String, start: Date, end: Date?) {
            (self.entry, self.id, self.start, self.end) = (entry, id, start, end)
        }
        init(_ entry: Int, opens first: Int, closesAt end: Int? = nil, named: Int? = nil) {
            self.init(entry: entry, id: FillSpanReplacementTests.id(named ?? first), start: FillSpanReplacementTests.date(first), end: end.map(FillSpanReplacementTests.date))
        }
        var description: String { "\(entry): \(id) \(end.map { "to \($0)" } ?? "open")" }
    }

    @Test func everyStandInReplacedLeavesNoStandInRange() {
        let vod = replacing(1...10, in: cut()).applyingReplacements()
        #expect(standInRanges(vod).isEmpty)
        #expect(!vod.render().contains(DateRange.standInClass), "the VOD text says stand-in nowhere")
        #expect(vod.segments[1...10].allSatisfy { $0.uri.hasSuffix("-late.ts") })
        // The live playlist players saw is not this view: it keeps the span.
        #expect(cut().render().contains(DateRange.standInClass))
    }

    @Test func nothingReplacedLeavesTheSpanAsItWas() {
        #expect(cut().applyingReplacements() == cut())
        let other = replacing([12], in: cut()).applyingReplacements()
        #expect(standInRanges(other) == [Row(1, opens: 1), Row(11, opens: 1, closesAt: 11)], "a replacement outside the span leaves it alone")
    }

    @Test(arguments: [
        // The backlog's first seven came: what is left is a span of its own, named by its start.
        (Array(1...7), [Row(8, opens: 8), Row(11, opens: 8, closesAt: 11)]),
        // The last three came: the span keeps its ID and closes where the real footage starts.
        (Array(8...10), [Row(1, opens: 1), Row(8, opens: 1, closesAt: 8)]),
        // Three in the middle: two spans.
        (Array(4...6), [Row(1, opens: 1), Row(4, opens: 1, closesAt: 4), Row(7, opens: 7), Row(11, opens: 7, closesAt: 11)]),
        // Every other one: five one-entry spans.
        ([2, 4, 6, 8, 10], [Row(1, opens: 1), Row(2, opens: 1, closesAt: 2), Row(3, opens: 3), Row(4, opens: 3, closesAt: 4),
                            Row(5, opens: 5), Row(6, opens: 5, closesAt: 6), Row(7, opens: 7), Row(8, opens: 7, closesAt: 8),
                            Row(9, opens: 9), Row(10, opens: 9, closesAt: 10)]),
    ] as [([Int], [Row])])
    func aSpanReplacedInPartCoversOnlyWhatIsStillAStandIn(replaced: [Int], rows: [Row]) throws {
        let vod = replacing(replaced, in: cut()).applyingReplacements()
        #expect(standInRanges(vod) == rows)
        // What is on disk and served reads back the same, and no late entry is said to be a stand-in.
        #expect(try MediaPlaylist.parse(vod.render()) == vod)
        let stillFilled = Set((1...10).filter { !replaced.contains($0) })
        #expect(Set(vod.replaceableEntries) == stillFilled, "the entries the spans cover are those still filled")
    }

    /// The process stopped during the cut: the span was never closed, and what is left of it
    /// after the replacements stays open where it ended.
    @Test func aSpanLeftOpenStaysOpenAtItsEnd() {
        let vod = replacing(1...3, in: cut(closed: false)).applyingReplacements()
        #expect(standInRanges(vod) == [Row(4, opens: 4)])
        let middle = replacing(5...6, in: cut(closed: false)).applyingReplacements()
        #expect(standInRanges(middle) == [Row(1, opens: 1), Row(5, opens: 1, closesAt: 5), Row(7, opens: 7)])
    }

    /// A sibling's copy over other entries is another span: a replacement in the stand-in span
    /// does not touch it.
    @Test func anotherSpanIsLeftAlone() {
        var playlist = cut()
        let sibling = DateRange(id: "sibling-fill-360p-x", classLabel: DateRange.siblingFillClass, startDate: Self.date(12))
        playlist.segments[12].dateRanges = [sibling]
        playlist.segments[12].discontinuity = true
        let vod = replacing(1...10, in: playlist).applyingReplacements()
        #expect(standInRanges(vod).isEmpty)
        #expect(vod.segments[12].dateRanges == [sibling])
    }
}
