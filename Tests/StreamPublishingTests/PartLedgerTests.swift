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
