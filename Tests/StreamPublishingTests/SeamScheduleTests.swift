import Foundation
import StreamPublishing
import Testing

/// Where tags fall, when an encoder counts as stalled, and a slot's one date: row by row.
@Suite struct SeamScheduleTests {
    @Test func aTagGoesOnlyWhereNoVariantPublished() {
        var seams = SeamSchedule()
        #expect(seams.tag(slot: 5, needed: false, frontier: 5) == false)
        #expect(seams.tag(slot: 4, needed: true, frontier: 5) == nil, "a sibling published slot 4 untagged")
        #expect(seams.tag(slot: 5, needed: true, frontier: 5) == true)
        #expect(seams.tag(slot: 5, needed: false, frontier: 7) == true, "a seam is tagged in every variant, needed or not")
        seams.declare(9)
        #expect(seams.tag(slot: 9, needed: false, frontier: 12) == true)
        seams.forget(before: 9)
        #expect(!seams.contains(5) && seams.contains(9))
    }

    @Test func anEncoderIsStalledAfterASecondOfSilence() {
        var liveness = EncoderLiveness()
        #expect(liveness.isStalled("720p", now: 10), "nothing said yet this run")
        liveness.progressed("720p", at: 10)
        #expect(!liveness.isStalled("720p", now: 10.99))
        #expect(liveness.isStalled("720p", now: 11))
        liveness.progressed("720p", at: 9)
        #expect(liveness.isStalled("720p", now: 11), "an older report does not move it back")
        liveness.forgetAll()
        #expect(liveness.isStalled("720p", now: 10.5))
    }

    @Test func aSlotKeepsTheFirstDateItWasGiven() {
        var dates = SlotDates()
        let first = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(dates.fix(3, proposed: nil) == nil)
        #expect(dates.fix(3, proposed: first) == first)
        #expect(dates.fix(3, proposed: first.addingTimeInterval(0.2)) == first)
        dates.forget(before: 4)
        #expect(dates.date(of: 3) == nil)
    }
}
