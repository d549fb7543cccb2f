import Foundation
import HLSPlaylist
import OriginPolicy
import OriginState
import SidelineTesting
import Testing

/// Parts (Low-Latency HLS) in the origin's state: which part changes it takes, the versions and
/// renderings they ask for, where a request finds a part's bytes (`PartIndex`), and the
/// rendition reports a version carries. Plain values, microseconds a row.
@Suite struct OriginStatePartTests {
    typealias File = OriginState.SegmentFile
    var state = OriginState(angleSets: [OriginState.AngleSet(name: "match", streams: ["main", "wide"], segmentDuration: 2)])

    init() {
        state.apply(.register(stream: "main", variants: ["720p", "360p"], targetDuration: 2), now: 0)
        state.apply(.register(stream: "wide", variants: ["720p"], targetDuration: 2), now: 0)
    }

    var variant: OriginState.Variant? { state.stream(named: "main")?.variants["720p"] }

    /// An edge with `open` parts of segment `next` and every listed entry in `listed` with four.
    static func edge(listed: [Int] = [], open: Int, next: Int) -> LowLatencyEdge {
        TestEdges.recorded(listed: listed, open: open, next: next)
    }

    @discardableResult
    mutating func publish(count: Int, edge: LowLatencyEdge?, stream: String = "main", variant: String = "720p") -> [OriginEffect] {
        let name = MediaSegment.recordedName(sequence: count - 1)
        return state.apply(.publish(.init(.segment(name, file: File(path: "/d/\(name)", size: 4000, duration: 2)), stream: stream, variant: variant,
                                          playlist: TestPlaylists.live(count: count), edge: edge)), now: 0)
    }

    @discardableResult
    mutating func part(_ sequence: Int, _ index: Int, size: Int = 1000, stream: String = "main", variant: String = "720p") -> [OriginEffect] {
        state.apply(.part(stream: stream, variant: variant, .init(sequence: sequence, index: index, bytes: [UInt8](repeating: 0x47, count: size)),
                          edge: Self.edge(open: index + 1, next: sequence)), now: 0)
    }

    @Test mutating func aPartOfTheNextSegmentIsANewVersionWhoseBytesAreKeptFirst() {
        publish(count: 3, edge: Self.edge(open: 0, next: 3))
        let before = variant?.version ?? 0
        let effects = part(3, 0)
        let version = variant?.version ?? 0
        #expect(version > before)
        #expect(effects == [.keepPart(stream: "main", variant: "720p", sequence: 3, index: 0, version: version),
                            .renderVariant(stream: "main", variant: "720p", version: version, markers: [], wake: true)])
        #expect(variant?.edge?.openParts.count == 1)
        #expect(variant?.parts.locate(segment: "000003.ts", index: 0) == .open(sequence: 3))
        #expect(variant?.parts.locate(segment: "000003.ts", index: 1) == nil)
    }

    @Test(arguments: [
        (3, 1, "a part out of order: part 0 first"),
        (4, 0, "a part of a segment after the next"),
        (2, 0, "a part of a segment already listed"),
    ])
    mutating func aPartThatIsNotTheNextOfTheNextSegmentChangesNothing(sequence: Int, index: Int, why: String) {
        publish(count: 3, edge: Self.edge(open: 0, next: 3))
        let before = (variant?.version, state.revision)
        #expect(part(sequence, index).isEmpty, "\(why)")
        #expect(before == (variant?.version, state.revision) && variant?.edge?.openParts.isEmpty == true, "\(why)")
    }

    @Test mutating func nothingBeforeTheFirstEntryOrAfterTheEnd() {
        #expect(part(0, 0).isEmpty, "a variant with nothing recorded")
        state.apply(.publish(.init(.playlists, stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 2, ended: true))), now: 0)
        #expect(part(2, 0).isEmpty, "an ended playlist lists no more parts")
    }

    /// Once its segment is listed with its parts, a part is that range of the segment's file:
    /// the file is exactly its parts one after another.
    @Test mutating func aListedSegmentsPartsAreRangesOfItsFile() {
        publish(count: 3, edge: Self.edge(open: 0, next: 3))
        for (index, size) in [1000, 188, 2000, 376].enumerated() { part(3, index, size: size) }
        publish(count: 4, edge: Self.edge(listed: [3], open: 0, next: 4))
        #expect(variant?.parts.locate(segment: "000003.ts", index: 0) == .file(segment: "000003.ts", range: 0..<1000))
        #expect(variant?.parts.locate(segment: "000003.ts", index: 2) == .file(segment: "000003.ts", range: 1188..<3188))
        #expect(variant?.parts.locate(segment: "000003.ts", index: 3) == .file(segment: "000003.ts", range: 3188..<3564))
        #expect(variant?.parts.locate(segment: "000003.ts", index: 4) == nil)
        #expect(variant?.parts.open == nil)
    }

    /// A fill took the slot (the edge lists no parts under the entry): its parts are gone, never
    /// served as ranges of a file that is not made of them.
    @Test mutating func aFilledSlotsPartsAreNotRangesOfTheFill() {
        publish(count: 3, edge: Self.edge(open: 0, next: 3))
        part(3, 0)
        part(3, 1)
        publish(count: 4, edge: Self.edge(open: 0, next: 4))
        #expect(variant?.parts.locate(segment: "000003.ts", index: 0) == nil)
    }

    /// A GAP entry lists GAP parts: never ranges of a file (it has none), whatever was made.
    @Test mutating func aGapEntrysPartsAreNoRanges() {
        publish(count: 3, edge: Self.edge(open: 0, next: 3))
        for index in 0..<4 { part(3, index) }
        var gapEdge = Self.edge(listed: [3], open: 0, next: 4)
        gapEdge.listedParts[3] = gapEdge.listedParts[3]?.map { PartialSegment(uri: $0.uri, duration: $0.duration, independent: $0.independent, gap: true) }
        publish(count: 4, edge: gapEdge)
        #expect(variant?.parts.locate(segment: "000003.ts", index: 0) == nil)
    }

    @Test mutating func onlyTheNewestEntriesKeepTheirParts() {
        publish(count: 1, edge: Self.edge(open: 0, next: 1))
        let last = PartIndex.keptEntries + 3
        for sequence in 1...last {
            part(sequence, 0)
            publish(count: sequence + 1, edge: Self.edge(listed: [sequence], open: 0, next: sequence + 1).withOpenPartsUnder(sequence, count: 1))
        }
        #expect(variant?.parts.ranges.count == PartIndex.keptEntries)
        #expect(variant?.parts.locate(segment: MediaSegment.recordedName(sequence: last), index: 0) != nil)
        #expect(variant?.parts.locate(segment: MediaSegment.recordedName(sequence: last - PartIndex.keptEntries), index: 0) == nil)
    }

    /// A late segment taken into the recording (a replacement) lists no new entry: the edge
    /// stays, and a replacement's playlist older than the one held (its writer runs beside the
    /// slots') never takes the live playlist back.
    @Test mutating func aReplacementKeepsTheEdgeAndNeverTakesThePlaylistBack() {
        publish(count: 3, edge: Self.edge(open: 0, next: 3))
        part(3, 0)
        let edge = variant?.edge
        state.apply(.publish(.init(.replacement("000001.ts", file: File(path: "/d/late.ts", size: 10, duration: 2)), stream: "main", variant: "720p",
                                   playlist: TestPlaylists.live(count: 2))), now: 0)
        #expect(variant?.edge == edge && variant?.recording?.segments.count == 3)
        state.apply(.publish(.init(.replacement("000002.ts", file: File(path: "/d/late2.ts", size: 10, duration: 2)), stream: "main", variant: "720p",
                                   playlist: TestPlaylists.live(count: 3, dateRangeAt: [2]))), now: 0)
        #expect(variant?.edge == edge && variant?.recording?.segments.last?.dateRanges.count == 1, "the same count: the replacement's recording, the edge kept")
        #expect(variant?.segments["000001.ts"]?.path == "/d/late.ts", "the recording takes the late segment")
        #expect(!part(3, 1).isEmpty, "the next part is taken")
    }

    /// Every other rung of the stream and every rung of the set's other angles, each where it
    /// has got: its last part, or its last segment while it lists no parts.
    @Test mutating func renditionReportsNameEveryOtherRenditionWhereItHasGot() {
        publish(count: 3, edge: Self.edge(open: 0, next: 3))
        publish(count: 5, edge: Self.edge(listed: [4], open: 0, next: 5), variant: "360p")
        part(5, 0, variant: "360p")
        part(5, 1, variant: "360p")
        publish(count: 2, edge: nil, stream: "wide")
        #expect(RenditionReports.reports(for: "720p", of: "main", in: state) == [
            RenditionReport(uri: "../360p/index.m3u8", lastSequence: 5, lastPart: 1),
            RenditionReport(uri: "../../wide/720p/index.m3u8", lastSequence: 1, lastPart: nil),
        ])
        #expect(RenditionReports.reports(for: "360p", of: "main", in: state).map(\.uri) == ["../720p/index.m3u8", "../../wide/720p/index.m3u8"])
        #expect(RenditionReports.reports(for: "720p", of: "wide", in: state).map(\.uri) == ["../../main/720p/index.m3u8", "../../main/360p/index.m3u8"])
    }
}

extension LowLatencyEdge {
    /// The same edge with `count` parts listed under `sequence` (what the ledger moves there).
    func withOpenPartsUnder(_ sequence: Int, count: Int) -> LowLatencyEdge {
        var edge = self
        edge.listedParts[sequence] = Array((edge.listedParts[sequence] ?? []).prefix(count))
        return edge
    }
}
