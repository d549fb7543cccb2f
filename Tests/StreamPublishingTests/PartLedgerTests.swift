import HLSPlaylist
import StreamPublishing
import Testing

/// Which parts a variant's playlist lists, beside the slots: rows of events, checked on the
/// edge they leave.
@Suite struct PartLedgerTests {
    typealias Part = PartLedger.Part

    static func part(_ index: Int) -> Part { Part(index: index, duration: 0.5, independent: index == 0) }

    @Test func partsOfTheSlotListedNextAreListedAndMoveUnderItsEntry() {
        var ledger = PartLedger(keep: 3)
        let firstListed = ledger.partArrived(variant: "720p", slot: 10, part: Self.part(0), nextSlot: 10, camera: true)
        #expect(firstListed)
        let secondListed = ledger.partArrived(variant: "720p", slot: 10, part: Self.part(1), nextSlot: 10, camera: true)
        #expect(secondListed)
        #expect(ledger.edges["720p"]?.open?.parts.map(\.index) == [0, 1])
        #expect(ledger.edges["720p"]?.nextPartIndex == 2)
        ledger.entryListed(variant: "720p", slot: 10, sequence: 7, real: true)
        #expect(ledger.edges["720p"]?.open == nil)
        #expect(ledger.edges["720p"]?.listed.map(\.sequence) == [7])
        #expect(ledger.edges["720p"]?.listed.first?.parts.count == 2)
        #expect(ledger.edges["720p"]?.nextPartIndex == 0)
    }

    @Test(arguments: [
        (11, true, "a later slot than the one listed next"),
        (9, true, "a slot already listed or filled"),
        (10, false, "the slate, or a slot withheld during an outage"),
    ])
    func aPartNotOfTheSegmentBeingMadeIsNotListed(slot: Int, camera: Bool, why: String) {
        var ledger = PartLedger(keep: 3)
        let listed = ledger.partArrived(variant: "720p", slot: slot, part: Self.part(0), nextSlot: 10, camera: camera)
        #expect(!listed, "\(why)")
        #expect(ledger.edges["720p"]?.open?.parts.isEmpty ?? true)
    }

    @Test func aPartOutOfOrderIsNotListed() {
        var ledger = PartLedger(keep: 3)
        let withoutPartZero = ledger.partArrived(variant: "720p", slot: 10, part: Self.part(1), nextSlot: 10, camera: true)
        #expect(!withoutPartZero, "part 0 is missing")
        let partZero = ledger.partArrived(variant: "720p", slot: 10, part: Self.part(0), nextSlot: 10, camera: true)
        #expect(partZero)
        let partZeroAgain = ledger.partArrived(variant: "720p", slot: 10, part: Self.part(0), nextSlot: 10, camera: true)
        #expect(!partZeroAgain, "part 0 twice")
        #expect(ledger.edges["720p"]?.open?.parts.map(\.index) == [0])
    }

    @Test func aFillThatTakesTheSlotFirstTakesItsPartsOutOfThePlaylist() {
        var ledger = PartLedger(keep: 3)
        _ = ledger.partArrived(variant: "720p", slot: 10, part: Self.part(0), nextSlot: 10, camera: true)
        ledger.entryListed(variant: "720p", slot: 10, sequence: 7, real: false)
        #expect(ledger.edges["720p"]?.open == nil)
        #expect(ledger.edges["720p"]?.listed.isEmpty == true)
        // A stale open segment (its slot passed without its entry) goes too.
        _ = ledger.partArrived(variant: "720p", slot: 11, part: Self.part(0), nextSlot: 11, camera: true)
        ledger.entryListed(variant: "720p", slot: 12, sequence: 9, real: true)
        #expect(ledger.edges["720p"]?.open == nil)
        #expect(ledger.edges["720p"]?.listed.isEmpty == true)
    }

    @Test func onlyTheNewestEntriesKeepTheirParts() {
        var ledger = PartLedger(keep: 2)
        for slot in 0..<4 {
            _ = ledger.partArrived(variant: "720p", slot: slot, part: Self.part(0), nextSlot: slot, camera: true)
            ledger.entryListed(variant: "720p", slot: slot, sequence: slot, real: true)
        }
        #expect(ledger.edges["720p"]?.listed.map(\.sequence) == [2, 3])
        // An entry without parts (a fill) still moves the window.
        ledger.entryListed(variant: "720p", slot: 4, sequence: 4, real: false)
        #expect(ledger.edges["720p"]?.listed.map(\.sequence) == [3])
    }

    @Test func variantsAreApart() {
        var ledger = PartLedger(keep: 3)
        _ = ledger.partArrived(variant: "720p", slot: 10, part: Self.part(0), nextSlot: 10, camera: true)
        ledger.entryListed(variant: "360p", slot: 10, sequence: 7, real: true)
        #expect(ledger.edges["720p"]?.open?.parts.count == 1)
        #expect(ledger.edges["360p"]?.listed.isEmpty == true)
    }

    @Test(arguments: [(2, 2.0, 3), (2, 1.0, 6), (4, 4.0, 3), (2, 2.5, 3), (0, 2.0, 2), (2, 0.0, 1), (2, .nan, 1)])
    func theEntriesKeptAreThreeTargetDurationsWorth(target: Int, segment: Double, kept: Int) {
        #expect(PartLedger.kept(targetDuration: target, segmentDuration: segment) == kept)
    }
}

/// The edge the ledger hands the origin: each part named by its segment, the hint at the part
/// after the last one, the next segment's first once the segment being made has them all.
@Suite struct PartLedgerEdgeTests {
    let settings = PartLedger.Settings(partTarget: 0.5005, partsPerSegment: 4)

    func ledger(openParts: Int, listedBefore: Bool = true) -> PartLedger {
        var ledger = PartLedger(keep: 3)
        if listedBefore {
            for index in 0..<4 { _ = ledger.partArrived(variant: "v", slot: 9, part: PartLedgerTests.part(index), nextSlot: 9, camera: true) }
            ledger.entryListed(variant: "v", slot: 9, sequence: 6, real: true)
        }
        for index in 0..<openParts { _ = ledger.partArrived(variant: "v", slot: 10, part: PartLedgerTests.part(index), nextSlot: 10, camera: true) }
        return ledger
    }

    @Test func listedAndOpenPartsAreNamedByTheirSegmentsAndTheHintFollowsTheLast() {
        let edge = ledger(openParts: 2).edge(of: "v", nextSequence: 7, settings: settings)
        #expect(edge.listedParts[6]?.map(\.uri) == ["parts/000006.0.ts", "parts/000006.1.ts", "parts/000006.2.ts", "parts/000006.3.ts"])
        #expect(edge.listedParts[6]?.map(\.independent) == [true, false, false, false])
        #expect(edge.openParts.map(\.uri) == ["parts/000007.0.ts", "parts/000007.1.ts"])
        #expect(edge.hint?.uri == "parts/000007.2.ts")
        #expect(edge.partTarget == 0.5005 && edge.partsPerSegment == 4)
        #expect(edge.reports.isEmpty, "the origin adds the reports from the siblings")
    }

    @Test(arguments: [(0, "parts/000007.0.ts"), (4, "parts/000008.0.ts")])
    func theHintIsTheNextSegmentsFirstPartOnceTheOpenOneHasAll(open: Int, hint: String) {
        let edge = ledger(openParts: open).edge(of: "v", nextSequence: 7, settings: settings)
        #expect(edge.hint?.uri == hint)
    }

    /// A GAP entry lists its parts with GAP=YES: as many as a segment has, none longer than
    /// PART-TARGET; the parts made for the slot before it leave.
    @Test func aGapEntryListsGapParts() {
        var ledger = ledger(openParts: 2)
        ledger.gapListed(variant: "v", slot: 10, sequence: 7, duration: 2.002, settings: settings)
        let edge = ledger.edge(of: "v", nextSequence: 8, settings: settings)
        let gaps = edge.listedParts[7] ?? []
        #expect(gaps.count == 4 && gaps.allSatisfy { $0.gap && $0.duration <= settings.partTarget })
        #expect(gaps.map(\.uri) == (0..<4).map { "parts/000007.\($0).ts" })
        #expect(edge.openParts.isEmpty && edge.hint?.uri == "parts/000008.0.ts")
    }

    @Test func aFillTakesTheSlotsPartsOutOfTheEdge() {
        var ledger = ledger(openParts: 2)
        ledger.entryListed(variant: "v", slot: 10, sequence: 7, real: false)
        let edge = ledger.edge(of: "v", nextSequence: 8, settings: settings)
        #expect(edge.listedParts[7] == nil && edge.openParts.isEmpty && edge.hint?.uri == "parts/000008.0.ts")
        #expect(edge.listedParts[6]?.count == 4)
    }
}
