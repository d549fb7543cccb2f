import Foundation
import HLSPlaylist
import SidelineCore
import SidelineTesting
import StreamPublishing
import Testing

/// The core decides a part's place whole (issue 44, item 3): the slot it belongs to, the
/// sequence number its segment is listed as and the edge it is published with, in the same
/// call; the listing of its entry carries the same number and the parts moved under it. Rows
/// on a two-rung stream with four parts a segment, clock injected.
@Suite struct EdgeLedgerTests {
    static let parts = PartLedger.Settings(partTarget: 0.5, partsPerSegment: 4)
    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)
    static let variants = ["720p", "360p"]

    static func core(restored: SlotPublisher.Restored? = nil, sink: RecordingSink, grid: SetTimeline? = nil, wallNow: Date = epoch,
                     failure: FailedVariantFill = .sibling) -> SlotPublisher {
        let settings = SlotPublisher.Settings(variants: variants, segmentDuration: 2, grace: 1, onVariantFailure: failure, onLateSegment: .standin, setTimeline: grid,
                                              parts: parts, partEntriesKept: 3)
        return SlotPublisher(settings: settings, restored: restored, now: 100, wallNow: wallNow)
    }

    static func part(_ index: Int) -> PartLedger.Part { .init(index: index, duration: 0.5, independent: index == 0) }

    /// The first `count` parts of slot `slot` of `variant` at `now`: the listings the core gives them.
    static func parts(of slot: Int, _ variant: String, in core: inout SlotPublisher, now: Double, count: Int = 4) -> [EdgeLedger.PartListing?] {
        (0..<count).map { index in
            core.partArrived(variant: variant, slot: slot, index: index, programDateTime: epoch.addingTimeInterval(Double(slot) * 2), now: now)
                .flatMap { core.listPart(part(index), of: variant, under: $0) }
        }
    }

    @Test func aPartsNumberIsTheNumberItsEntryIsListedUnderAndItsPartsMoveThere() {
        let sink = RecordingSink()
        @Carried(into: sink) var core = Self.core(sink: sink)
        _ = core.beginRun(now: 100)
        for slot in 0..<3 {
            let now = 100 + Double(slot) * 2
            let listings = Self.parts(of: slot, "720p", in: &core, now: now + 1.5)
            #expect(listings.map { $0?.sequence } == Array(repeating: slot, count: 4), "slot \(slot): entry \(slot) of a fresh recording")
            #expect(listings.last??.edge?.openParts.map(\.uri) == (0..<4).map { PartialSegment.recordedURI(segment: MediaSegment.recordedName(sequence: slot), index: $0) })
            #expect(listings.last??.edge?.hint?.uri == PartialSegment.recordedURI(segment: MediaSegment.recordedName(sequence: slot + 1), index: 0),
                    "a whole segment's parts: the hint is the next segment's first")
            for variant in Self.variants {
                core.segmentArrived(variant: variant, slot: slot, duration: 2, programDateTime: Self.epoch.addingTimeInterval(Double(slot) * 2), now: now + 2)
            }
        }
        #expect(sink.sequences["720p"] == [0, 1, 2] && sink.sequences["360p"] == [0, 1, 2])
        let last = sink.edges["720p"]?.last ?? nil
        #expect(last?.listedParts.keys.sorted() == [0, 1, 2], "the parts moved under their entries, the newest three kept")
        #expect(last?.openParts.isEmpty == true)
        #expect(sink.edges["360p"]?.last??.listedParts.isEmpty == true, "360p made no parts: none listed")
    }

    /// A restarted process continues the recording's numbers; a new recording on the universal
    /// grid numbers by slot.
    @Test func numbersContinueTheRecordingOrStartAtTheSlot() {
        let sink = RecordingSink()
        let restored = SlotPublisher.Restored(entries: 5, timeline: StreamTimeline(), lastProgramDateTime: Self.epoch.addingTimeInterval(8), lastDuration: 2,
                                              firstSequence: 40)
        @Carried(into: sink) var core = Self.core(restored: restored, sink: sink, wallNow: Self.epoch.addingTimeInterval(10))
        let first = core.beginRun(now: 100)
        let listing = Self.parts(of: first, "720p", in: &core, now: 101.5).first ?? nil
        #expect(listing?.sequence == 45, "entry 5 of a recording numbered from 40")

        // Variants recorded with first numbers of their own keep them.
        let apartSink = RecordingSink()
        var apart = restored
        apart.variantFirstSequences = ["720p": 40, "360p": 52]
        @Carried(into: apartSink) var apartCore = Self.core(restored: apart, sink: apartSink, wallNow: Self.epoch.addingTimeInterval(10))
        let apartFirst = apartCore.beginRun(now: 100)
        #expect((Self.parts(of: apartFirst, "360p", in: &apartCore, now: 101.5).first ?? nil)?.sequence == 57, "entry 5 of a variant numbered from 52")
        for variant in Self.variants {
            apartCore.segmentArrived(variant: variant, slot: apartFirst, duration: 2, programDateTime: Self.epoch.addingTimeInterval(12), now: 102)
        }
        #expect(apartSink.sequences["720p"] == [45] && apartSink.sequences["360p"] == [57])

        let universalSink = RecordingSink()
        let today = Date(timeIntervalSince1970: 1_795_960_800)
        @Carried(into: universalSink) var universal = Self.core(sink: universalSink, grid: .universal(segmentDuration: 2), wallNow: today)
        let slot = universal.beginRun(now: 100)
        #expect(universalSink.numberedFrom == 897_980_400)
        let universalListing = Self.parts(of: slot, "720p", in: &universal, now: 101.5).first ?? nil
        #expect(universalListing?.sequence == universalSink.numberedFrom.map { $0 + slot - 897_980_400 }, "entry n is slot n")
    }

    /// An encoder that stops inside a segment leaves the entry its parts promised, with those
    /// parts listed under it; a GAP entry lists GAP parts.
    @Test func aCutSegmentKeepsItsPartsAndAGapListsGapParts() {
        let sink = RecordingSink()
        @Carried(into: sink) var core = Self.core(sink: sink, failure: .gap)
        _ = core.beginRun(now: 100)
        let opened = Self.parts(of: 0, "720p", in: &core, now: 101, count: 2)
        #expect(opened.map { $0?.sequence } == [0, 0])
        core.segmentArrived(variant: "360p", slot: 0, duration: 2, programDateTime: Self.epoch, now: 102)
        _ = core.beginRun(now: 102.5)
        #expect(sink.shape("720p") == "P", "the slot is the parts it published")
        #expect((sink.edges["720p"]?.first ?? nil)?.listedParts[0]?.map(\.gap) == [false, false], "its two parts, under entry 0")

        core.variantFailed("720p")
        core.segmentArrived(variant: "360p", slot: 1, duration: 2, programDateTime: Self.epoch.addingTimeInterval(2), now: 104.5)
        #expect(sink.shape("720p").hasSuffix("G"), "\(sink.shape("720p"))")
        let gap = sink.edges["720p"]?.last ?? nil
        #expect(gap?.listedParts[1]?.map(\.gap) == [true, true, true, true], "a GAP entry's parts are GAP parts")
        #expect(gap?.listedParts[0]?.count == 2, "the cut segment's parts stay listed")
    }
}
