import Foundation
import SidelineCore
import Testing

/// The slot grid's arithmetic, once for every grid (a set's timeline, a pusher's, the ingest's
/// placing of a pushed angle), as rows on a grid of D = 2 s from 1,800,000,000 s.
@Suite struct SlotGridTests {
    static let grid = WallClockGrid(epoch: Date(timeIntervalSince1970: 1_800_000_000), segmentDuration: 2)

    static func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + seconds) }

    @Test(arguments: [(0.0, 0), (1.999, 0), (2, 1), (-0.001, -1), (-2, -1), (3_600, 1_800)] as [(Double, Int)])
    func theSlotWhoseSpanHoldsAnInstant(seconds: Double, slot: Int) {
        #expect(Self.grid.slot(of: Self.at(seconds)) == slot)
        #expect(Self.grid.start(of: slot) <= Self.at(seconds) && Self.at(seconds) < Self.grid.start(of: slot + 1))
    }

    @Test(arguments: [(0.0, 0), (0.001, 1), (2, 1), (3.999, 2), (-100, 0)] as [(Double, Int)])
    func theFirstSlotStartingNoEarlier(seconds: Double, slot: Int) {
        #expect(Self.grid.firstSlot(startingAt: Self.at(seconds)) == slot)
    }

    @Test func theNearestSlotAndHowFarFromItsStart() throws {
        let near = try #require(Self.grid.nearestSlot(to: Self.at(10.04)))
        #expect(near.slot == 5 && abs(near.offset - 0.04) < 1e-6)
        let before = try #require(Self.grid.nearestSlot(to: Self.at(9.05)))
        #expect(before.slot == 5 && abs(before.offset + 0.95) < 1e-6)
        // A date 2^40 slots or more away: a clock gone wrong, no slot.
        #expect(Self.grid.nearestSlot(to: Date(timeIntervalSince1970: 1e300)) == nil)
        #expect(Self.grid.nearestSlot(to: Date.distantFuture.addingTimeInterval(1e18)) == nil)
        #expect(Self.grid.nearestSlot(to: Self.at(0x1p40 * 2)) == nil)
        // A grid counted from 1970 (the universal one) finds today's slot even at D = 0.5 s,
        // 3.5 billion slots on: more than an Int32 holds.
        let fromNineteenSeventy = WallClockGrid(epoch: Date(timeIntervalSince1970: 0), segmentDuration: 0.5)
        let today = try #require(fromNineteenSeventy.nearestSlot(to: Date(timeIntervalSince1970: 1_795_000_000.1)))
        #expect(today.slot == 3_590_000_000 && abs(today.offset - 0.1) < 1e-5)
    }

    /// Any instant gives a slot, however far: saturated, never a trap.
    @Test func farInstantsSaturate() {
        #expect(Self.grid.slot(of: Date(timeIntervalSince1970: 1e300)) == Int(1) << 62)
        #expect(Self.grid.slot(of: Date(timeIntervalSince1970: -1e300)) == -(Int(1) << 62))
        #expect(Self.grid.firstSlot(startingAt: Date(timeIntervalSince1970: 1e300)) == Int(1) << 62)
    }

    /// A grid begins at the first multiple of D since 1970 at or after now, in whole milliseconds.
    @Test(arguments: [(1_800_000_000.0, 1_800_000_000.0), (1_800_000_000.0001, 1_800_000_002.0), (1_800_000_001.5, 1_800_000_002.0)] as [(Double, Double)])
    func aGridBeginsOnTheMultiplesOfDSince1970(now: Double, epoch: Double) {
        #expect(WallClockGrid.starting(at: Date(timeIntervalSince1970: now), segmentDuration: 2).epoch == Date(timeIntervalSince1970: epoch))
    }
}
