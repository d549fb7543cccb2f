import Foundation
import HLSPlaylist
import SidelineTesting
import Testing

/// Low-Latency HLS's tags (draft-pantos-hls-rfc8216bis §4.4.3.7, §4.4.4.9, §4.4.5.3, §4.4.5.4)
/// as Sideline writes and reads them: the edge's parts before their segment's EXTINF, the open
/// segment's parts and the hint after the last entry, the incremental text equal to the full
/// render, and every form read back to the same values.
@Suite struct LowLatencyPlaylistTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let control = ServerControl(canSkipUntil: 12, canSkipDateRanges: true, canBlockReload: true, holdBack: 6, partHoldBack: 1.5)

    static func segment(_ i: Int) -> MediaSegment {
        MediaSegment(uri: String(format: "%06d.ts", i), duration: 2, programDateTime: start.addingTimeInterval(Double(2 * i)))
    }

    static func parts(of sequence: Int, count: Int = 4) -> [PartialSegment] {
        (0..<count).map { PartialSegment(uri: String(format: "%06d.%d.ts", sequence, $0), duration: 0.5, independent: $0 == 0) }
    }

    /// Ten entries; the last two with parts, two parts of the eleventh made, the third hinted.
    static func edge(sequenceOffset: Int = 0) -> LowLatencyEdge {
        LowLatencyEdge(partTarget: 0.5, listedParts: [8 + sequenceOffset: parts(of: 8 + sequenceOffset), 9 + sequenceOffset: parts(of: 9 + sequenceOffset)],
                       openParts: Array(parts(of: 10 + sequenceOffset).prefix(2)), openProgramDateTime: start.addingTimeInterval(20),
                       hint: PreloadHint(uri: String(format: "%06d.2.ts", 10 + sequenceOffset)),
                       reports: [RenditionReport(uri: "../360p/index.m3u8", lastSequence: 10 + sequenceOffset, lastPart: 1)])
    }

    static func playlist(count: Int = 10) -> MediaPlaylist {
        MediaPlaylist(targetDuration: 2, segments: (0..<count).map(segment))
    }

    @Test func theTagsAreWrittenAsTheDraftSpellsThem() {
        #expect(PartialSegment(uri: "000010.0.ts", duration: 0.5, independent: true).render() == "#EXT-X-PART:DURATION=0.500000,URI=\"000010.0.ts\",INDEPENDENT=YES\n")
        #expect(PartialSegment(uri: "000010.1.ts", duration: 0.5, gap: true).render() == "#EXT-X-PART:DURATION=0.500000,URI=\"000010.1.ts\",GAP=YES\n")
        #expect(PreloadHint(uri: "000010.2.ts").render() == "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"000010.2.ts\"\n")
        #expect(RenditionReport(uri: "../360p/index.m3u8", lastSequence: 10, lastPart: 1).render() == "#EXT-X-RENDITION-REPORT:URI=\"../360p/index.m3u8\",LAST-MSN=10,LAST-PART=1\n")
        #expect(Self.control.render() == "#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=12,CAN-SKIP-DATERANGES=YES,CAN-BLOCK-RELOAD=YES,HOLD-BACK=6.000,PART-HOLD-BACK=1.500\n")
        // Without hold-backs, the tag is what it was before parts.
        #expect(ServerControl(canSkipUntil: 12, canBlockReload: true).render() == "#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=12,CAN-BLOCK-RELOAD=YES\n")
    }

    @Test func partsStandBetweenTheirSegmentsDateAndItsExtinfAndTheEdgeFollowsTheLastEntry() throws {
        let text = Self.playlist().render(control: Self.control, edge: Self.edge())
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.firstIndex(of: "#EXT-X-PART-INF:PART-TARGET=0.500000") == lines.firstIndex(of: "#EXT-X-TARGETDURATION:2").map { $0 + 1 })
        let uri8 = try #require(lines.firstIndex(of: "000008.ts"))
        #expect(lines[uri8 - 6].hasPrefix("#EXT-X-PROGRAM-DATE-TIME:"))
        #expect(lines[(uri8 - 5)...(uri8 - 2)] == ArraySlice(Self.parts(of: 8).map { $0.render().dropLast() }.map(String.init)))
        #expect(lines[uri8 - 1] == "#EXTINF:2.000000,")
        #expect(!text.contains("000007.0.ts"), "older segments are listed without parts")
        let tail = try #require(lines.firstIndex(of: "000009.ts"))
        #expect(lines[(tail + 1)...] == [
            "#EXT-X-PROGRAM-DATE-TIME:" + ProgramDateTime.format(Self.start.addingTimeInterval(20)),
            "#EXT-X-PART:DURATION=0.500000,URI=\"000010.0.ts\",INDEPENDENT=YES",
            "#EXT-X-PART:DURATION=0.500000,URI=\"000010.1.ts\"",
            "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"000010.2.ts\"",
            "#EXT-X-RENDITION-REPORT:URI=\"../360p/index.m3u8\",LAST-MSN=10,LAST-PART=1",
        ])
        // Without an edge, nothing changes.
        #expect(Self.playlist().render(control: Self.control, edge: nil) == Self.playlist().render(control: Self.control))
    }

    @Test func theIncrementalTextIsTheFullRenderByteForByte() {
        var live = LiveMediaPlaylist(Self.playlist(count: 8))
        for i in 8..<10 { live.append(Self.segment(i)) }
        #expect(live.text(control: Self.control, edge: Self.edge()) == Self.playlist().render(control: Self.control, edge: Self.edge()))
        // A marker after the last entry stays before the open segment's parts.
        live.appendTrailing(DateRange(id: "mark", classLabel: "com.example", startDate: Self.start.addingTimeInterval(19)))
        #expect(live.text(control: Self.control, edge: Self.edge()) == live.playlist.render(control: Self.control, edge: Self.edge()))
        // A playlist that does not start at 0, and an edge naming entries it does not list.
        var shifted = Self.playlist()
        shifted.mediaSequence = 100
        var odd = Self.edge(sequenceOffset: 100)
        odd.listedParts[3] = Self.parts(of: 3)
        odd.listedParts[500] = Self.parts(of: 500)
        let expected = LiveMediaPlaylist(shifted).text(control: Self.control, edge: odd)
        #expect(expected.contains("000108.0.ts") && !expected.contains("000003.0.ts") && !expected.contains("000500.0.ts"))
    }

    /// The camera again after a stand-in: its segment will be listed after EXT-X-DISCONTINUITY,
    /// and its parts say so before it is (a player appends them before the segment is listed).
    @Test func theSegmentBeingMadeSaysItsDiscontinuityBeforeItsParts() throws {
        var edge = Self.edge()
        edge.openDiscontinuity = true
        #expect(edge.tail().hasPrefix("#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:"))
        let parsed = try MediaPlaylist.parseLive(Self.playlist().render(control: Self.control, edge: edge))
        #expect(parsed.edge == edge && parsed.playlist == Self.playlist())
        edge.openParts = []
        #expect(!edge.tail().contains("DISCONTINUITY"), "nothing of the segment being made is listed yet: nothing to say")
    }

    @Test func everyFormReadsBackToTheSameValues() throws {
        let text = Self.playlist().render(control: Self.control, edge: Self.edge())
        let parsed = try MediaPlaylist.parseLive(text)
        #expect(parsed.playlist == Self.playlist())
        #expect(parsed.serverControl == Self.control)
        #expect(parsed.edge == Self.edge())
        let delta = try #require(Self.playlist().renderDelta(control: Self.control, skippingDateRanges: false, edge: Self.edge()))
        #expect(delta.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=4\n"))
        #expect(delta.contains("#EXT-X-PART-INF:PART-TARGET=0.500000\n"))
        #expect(delta.hasSuffix(Self.edge().tail()), "the delta ends with the same edge as the full playlist")
        #expect(delta.contains(Self.parts(of: 9)[3].render()))
    }

    @Test(arguments: [
        "#EXT-X-PART:DURATION=0.5,URI=\"a.ts\"",                                        // parts without PART-INF
        "#EXT-X-PART-INF:PART-TARGET=0\n",                                             // a target of nothing
        "#EXT-X-PART-INF:PART-TARGET=nan\n",
        "#EXT-X-PART-INF:PART-TARGET=0.5\n#EXT-X-PART:DURATION=0.5\n",                 // no URI
        "#EXT-X-PART-INF:PART-TARGET=0.5\n#EXT-X-PART:DURATION=1e300,URI=\"a.ts\"\n",  // a duration out of bounds
        "#EXT-X-PART-INF:PART-TARGET=0.5\n#EXT-X-PART:DURATION=0.5,URI=\"a.ts\",INDEPENDENT=MAYBE\n",
    ])
    func malformedLowLatencyTagsAreRefusedWithTheirLine(tag: String) {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + tag + "\n#EXTINF:2,\n000000.ts\n"
        #expect(throws: PlaylistParseError.self) { try MediaPlaylist.parseLive(text) }
    }

    /// What a reader that does not use low-latency tags skips (§4.1), and what parseLive leaves
    /// out rather than refuses: reports it cannot read (the draft lets a server leave their
    /// attributes out) and hold-backs out of range (advice, not structure).
    @Test(arguments: [
        "#EXT-X-RENDITION-REPORT:URI=\"../a/index.m3u8\",LAST-MSN=-1\n",
        "#EXT-X-RENDITION-REPORT:URI=\"../a/index.m3u8\"\n",
        "#EXT-X-RENDITION-REPORT:URI=\"../a/index.m3u8\",LAST-MSN=3,LAST-PART=99999999999999999999\n",
        "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=-1\n",
        "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,HOLD-BACK=inf\n",
    ])
    func unreadableAdviceIsLeftOutNotRefused(tag: String) throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PART-INF:PART-TARGET=0.5\n" + tag + "#EXTINF:2,\n000000.ts\n"
        let parsed = try MediaPlaylist.parseLive(text)
        #expect(parsed.edge?.reports == [])
        #expect(parsed.serverControl?.holdBack == nil && parsed.serverControl?.partHoldBack == nil)
    }

    @Test func aReaderThatDoesNotUsePartsSkipsTheirTagsHoweverMalformed() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PART:DURATION=nan\n#EXT-X-PRELOAD-HINT:junk\n#EXT-X-RENDITION-REPORT:junk\n#EXTINF:2,\n000000.ts\n"
        #expect(try MediaPlaylist.parse(text).segments.count == 1)
        #expect(throws: PlaylistParseError.self) { try MediaPlaylist.parseLive(text) }
    }

    @Test func aPlaylistWithoutPartsHasNoEdgeAndAHintOfAnotherTypeIsLeftAlone() throws {
        #expect(try MediaPlaylist.parseLive(Self.playlist().render(control: Self.control)).edge == nil)
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PART-INF:PART-TARGET=0.5\n#EXTINF:2,\n000000.ts\n#EXT-X-PRELOAD-HINT:TYPE=MAP,URI=\"init.mp4\"\n"
        let edge = try #require(try MediaPlaylist.parseLive(text).edge)
        #expect(edge.hint == nil && edge.openParts.isEmpty && edge.listedParts.isEmpty)
    }
}

/// The validator the tests hold every live low-latency playlist to: a playlist Sideline's
/// renderer makes passes, and each rule, broken on its own, is named.
@Suite struct LowLatencyPlaylistRulesTests {
    typealias Make = LowLatencyPlaylistTests

    static func text(control: ServerControl = Make.control, edit: (inout LowLatencyEdge) -> Void = { _ in }) -> String {
        var edge = Make.edge()
        edit(&edge)
        return Make.playlist().render(control: control, edge: edge)
    }

    @Test func aRenderedEdgePasses() {
        #expect(LowLatencyPlaylistRules.violations(of: Self.text(), renditions: ["../360p/index.m3u8"]) == [])
    }

    struct Broken: Sendable, CustomTestStringConvertible {
        let name: String
        let expected: String
        let edit: @Sendable (inout LowLatencyEdge) -> Void
        var testDescription: String { name }
    }

    static let broken: [Broken] = [
        Broken(name: "a part longer than PART-TARGET", expected: "longer than PART-TARGET") { $0.openParts[1].duration = 0.6 },
        Broken(name: "a short part that is not a segment's last", expected: "less than 85%") {
            $0.openParts[1].duration = 0.3
            $0.openParts.append(PartialSegment(uri: "000010.2.ts", duration: 0.5))
            $0.hint = PreloadHint(uri: "000010.3.ts")
        },
        Broken(name: "INDEPENDENT on a part that does not start its segment", expected: "does not start") { $0.listedParts[8]?[2].independent = true },
        Broken(name: "a segment's first part not INDEPENDENT", expected: "is not INDEPENDENT=YES") { $0.openParts[0].independent = false },
        Broken(name: "parts that do not add up to their segment", expected: "its EXTINF") { _ = $0.listedParts[8]?.removeLast() },
        Broken(name: "no preload hint", expected: "EXT-X-PRELOAD-HINT") { $0.hint = nil },
        Broken(name: "a hint naming a listed part", expected: "already listed") { $0.hint = PreloadHint(uri: "000010.1.ts") },
        Broken(name: "no report for another rendition", expected: "no EXT-X-RENDITION-REPORT") { $0.reports = [] },
        Broken(name: "a report without LAST-PART", expected: "no LAST-PART") { $0.reports[0].lastPart = nil },
        Broken(name: "open parts without a date", expected: "no EXT-X-PROGRAM-DATE-TIME") { $0.openProgramDateTime = nil },
    ]

    @Test(arguments: broken)
    func eachBrokenRuleIsNamed(rule: Broken) {
        let found = LowLatencyPlaylistRules.violations(of: Self.text(edit: rule.edit), renditions: ["../360p/index.m3u8"])
        #expect(found.count == 1 && found.first?.contains(rule.expected) == true, "\(rule.name): \(found)")
    }

    /// A redundant pair's playlist: every part INDEPENDENT passes, one that is not is named; a
    /// single box's rule (only the first) would have named every part after the first.
    @Test func aPairsPartsAreEachIndependent() {
        let every = Self.text { edge in
            for key in edge.listedParts.keys { edge.listedParts[key] = edge.listedParts[key]?.map { var part = $0; part.independent = true; return part } }
            edge.openParts = edge.openParts.map { var part = $0; part.independent = true; return part }
        }
        #expect(LowLatencyPlaylistRules.violations(of: every, renditions: ["../360p/index.m3u8"], keyframeEveryPart: true) == [])
        #expect(LowLatencyPlaylistRules.violations(of: every, renditions: ["../360p/index.m3u8"]).allSatisfy { $0.contains("does not start") })
        let one = LowLatencyPlaylistRules.violations(of: Self.text(), renditions: ["../360p/index.m3u8"], keyframeEveryPart: true)
        #expect(!one.isEmpty && one.allSatisfy { $0.contains("is not INDEPENDENT=YES, though every part of a redundant pair") }, "\(one)")
    }

    @Test func theServerControlsRulesAreNamed() {
        let noHoldBack = ServerControl(canSkipUntil: 12, canBlockReload: true)
        #expect(LowLatencyPlaylistRules.violations(of: Self.text(control: noHoldBack)) == ["EXT-X-SERVER-CONTROL lacks PART-HOLD-BACK, which parts require"])
        let short = ServerControl(canBlockReload: true, holdBack: 4, partHoldBack: 1.0)
        #expect(LowLatencyPlaylistRules.violations(of: Self.text(control: short)) == [
            "PART-HOLD-BACK 1.0 is less than three PART-TARGETs (1.5)", "HOLD-BACK 4.0 is less than three target durations (6)",
        ])
        let noBlocking = ServerControl(partHoldBack: 1.5)
        #expect(LowLatencyPlaylistRules.violations(of: Self.text(control: noBlocking)) == ["EXT-X-SERVER-CONTROL lacks CAN-BLOCK-RELOAD=YES, which parts require"])
        #expect(LowLatencyPlaylistRules.violations(of: Make.playlist().render(control: Make.control)) == ["no EXT-X-PART-INF: the playlist lists no parts"])
    }
}
