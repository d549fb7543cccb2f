import Foundation
import HLSPlaylist
import OriginAPI
import OriginRegistry
import OriginState
import SidelineTesting
import Testing

/// A marker added while a segment's parts are out (issue 44, item 1: nothing is inserted before
/// a published line). The open segment's date range, date and first part went out before the
/// marker came; the marker waits for that segment to be listed, and then goes after it. Before,
/// it went before the open segment's published lines, then moved after the entry's own range.
@Suite struct MarkerWithPartsTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// An edge with `open` parts of entry `next` and four parts for each of `listed`; the open
    /// segment's header as the server's writer gives it (its own date range, its date).
    static func edge(listed: [Int] = [], open: Int, next: Int) -> LowLatencyEdge {
        var edge = TestEdges.recorded(listed: listed, open: open, next: next, openDate: start.addingTimeInterval(Double(2 * next)))
        edge.openDateRanges = [DateRange(id: "mark-\(next)", classLabel: "com.example", startDate: start.addingTimeInterval(Double(2 * next)))]
        return edge
    }

    func publish(_ registry: StreamRegistry, count: Int, variant: String, edge: LowLatencyEdge?) {
        let name = MediaSegment.recordedName(sequence: count - 1)
        registry.apply(.publish(.init(.segment(name, file: .init(path: "/d/\(variant)/\(name)", size: 188, duration: 2)), stream: "main", variant: variant,
                                      playlist: TestPlaylists.live(count: count, dateRangeAt: Set(0..<count)), edge: edge)))
    }

    /// The lines a player has read and may count on: everything up to the last part, not the
    /// hint and reports after it, which the next version replaces.
    static func published(_ text: String) -> [Substring] {
        let lines = text.split(separator: "\n")
        guard let last = lines.lastIndex(where: { $0.hasPrefix("#EXT-X-PART:") || $0.hasSuffix(".ts") }) else { return lines }
        return Array(lines[...last])
    }

    static func appendsOnly(_ before: String, _ after: String) -> Bool {
        let kept = published(before)
        return Array(after.split(separator: "\n").prefix(kept.count)) == kept
    }

    @Test func aMarkerAddedWhileAPartIsOutWaitsForItsSegmentAndOnlyAppends() async throws {
        let directory = NSTemporaryDirectory() + "marker-parts-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/main", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p", "360p"], targetDuration: 2))
        for n in 1...4 {
            publish(registry, count: n, variant: "720p", edge: Self.edge(listed: Array(0..<n), open: 0, next: n))
            publish(registry, count: n, variant: "360p", edge: Self.edge(listed: Array(0..<n), open: 0, next: n))
        }
        // Entry 4's first part is out in 720p, under its date range and date.
        registry.apply(.part(stream: "main", variant: "720p", .init(sequence: 4, index: 0, bytes: [UInt8](repeating: 0x47, count: 188)),
                             edge: Self.edge(listed: Array(0..<4), open: 1, next: 4)))
        let partOut = try #require(registry.playlistText(stream: "main", variant: "720p"))
        #expect(partOut.contains("ID=\"mark-4\"") && partOut.contains("000004.0.ts"), "\(partOut)")

        let book = MarkerBook(registry: registry, dataDirectory: directory, wallClock: { Self.start.addingTimeInterval(9) })
        let marker = try await book.add(stream: "main", body: Array(#"{"label": "Try"}"#.utf8))
        #expect(marker.listedBefore == 5, "entry 4's lines are out in 720p: the marker goes before entry 5")
        let added = try #require(registry.playlistText(stream: "main", variant: "720p"))
        #expect(!added.contains(marker.id), "not before entry 4's published lines: it waits")
        #expect(Self.appendsOnly(partOut, added), "\(partOut)\n---\n\(added)")

        // Entry 4 is listed: the marker follows it, and every line read before is still there.
        publish(registry, count: 5, variant: "720p", edge: Self.edge(listed: Array(0..<5), open: 0, next: 5))
        let listed = try #require(registry.playlistText(stream: "main", variant: "720p"))
        #expect(Self.appendsOnly(added, listed), "\(added)\n---\n\(listed)")
        let lines = listed.split(separator: "\n")
        let entry = try #require(lines.firstIndex(of: "000004.ts"))
        let placed = try #require(lines.firstIndex { $0.contains("ID=\"\(marker.id)\"") })
        #expect(placed > entry)
        // Entry 5's first part: the marker stays where it was read, before 5's lines.
        registry.apply(.part(stream: "main", variant: "720p", .init(sequence: 5, index: 0, bytes: [UInt8](repeating: 0x47, count: 188)),
                             edge: Self.edge(listed: Array(0..<5), open: 1, next: 5)))
        let nextPart = try #require(registry.playlistText(stream: "main", variant: "720p"))
        #expect(Self.appendsOnly(listed, nextPart), "\(listed)\n---\n\(nextPart)")
        publish(registry, count: 6, variant: "720p", edge: Self.edge(listed: Array(0..<6), open: 0, next: 6))
        let after = try #require(registry.playlistText(stream: "main", variant: "720p"))
        #expect(Self.appendsOnly(nextPart, after), "\(nextPart)\n---\n\(after)")

        // 360p had no part of entry 4 out: the marker waits there too, then follows entry 4.
        #expect(!(registry.playlistText(stream: "main", variant: "360p") ?? "").contains(marker.id))
        publish(registry, count: 5, variant: "360p", edge: Self.edge(listed: Array(0..<5), open: 0, next: 5))
        let low = (registry.playlistText(stream: "main", variant: "360p") ?? "").split(separator: "\n")
        let lowEntry = try #require(low.firstIndex(of: "000004.ts"))
        #expect(low.firstIndex { $0.contains("ID=\"\(marker.id)\"") }.map { $0 > lowEntry } == true, "\(low)")
    }
}
