import Foundation
import SidelineCore
import SidelineTesting
import StreamPublishing
import Testing

/// The universal grid of a box with `redundancy` (issue 35, item 1): slot k is k x D seconds
/// after 1970, every entry n is slot n under media sequence number n, whenever each box started
/// and however long it was down.
@Suite struct UniversalTimelineTests {
    let all = ["720p", "360p"]
    /// 2026-11-29 about 14:00 UTC, on a slot boundary (D = 2).
    let today = Date(timeIntervalSince1970: 1_795_960_800)

    func box(startedAt wallNow: Date, restored: SlotPublisher.Restored? = nil, late: LateSegmentFill = .standin) -> (SlotPublisher, RecordingSink, ManualClock) {
        let sink = RecordingSink()
        let settings = SlotPublisher.Settings(variants: all, segmentDuration: 2, grace: 1, onLateSegment: late,
                                              setTimeline: .universal(segmentDuration: 2))
        let core = SlotPublisher(settings: settings, restored: restored, now: 100, wallNow: wallNow, sink: sink)
        return (core, sink, ManualClock(100))
    }

    @Test func theUniversalGridCountsFromNineteenSeventy() {
        let grid = SetTimeline.universal(segmentDuration: 2)
        #expect(grid.isUniversal && !SetTimeline(epoch: today, segmentDuration: 2).isUniversal)
        #expect(grid.slot(of: today) == 897_980_400)
        #expect(grid.slot(of: today.addingTimeInterval(1.999)) == 897_980_400)
        #expect(grid.start(of: 897_980_401) == today.addingTimeInterval(2))
        #expect(grid.maximumGapSlots == .max, "no limit: entry n is slot n whatever was missed")
        #expect(SetTimeline(epoch: today, segmentDuration: 2).maximumGapSlots == 150)
    }

    /// Box B starts 37.3 s after box A: each numbers its recording from the slot of its start,
    /// and a slot both list has the same number and date in both.
    @Test func twoBoxesStartedApartListTheSameSlotUnderTheSameNumber() {
        let first = 897_980_400
        var (a, sinkA, aClock) = box(startedAt: today.addingTimeInterval(0.2))
        // B: 37.3 s later on the wall, and a monotonic clock of its own.
        var (b, sinkB, bClock) = box(startedAt: today.addingTimeInterval(37.5))
        #expect(sinkA.numberedFrom == first)
        #expect(sinkB.numberedFrom == first + 19, "B's first slot starts at or after its start less half the grace")
        #expect(sinkA.timelines == [StreamTimeline(runs: [.init(firstEntry: 0, firstSlot: first)])], "kept with the recording")
        #expect(a.beginRun(now: aClock.now) == first, "its slot began 0.2 s ago: still its first")
        #expect(b.beginRun(now: bClock.now) == first + 19)
        for slot in (first + 19)..<(first + 23) {
            for variant in all {
                a.segmentArrived(variant: variant, slot: slot, duration: 2, programDateTime: today, now: 200)
                b.segmentArrived(variant: variant, slot: slot, duration: 2, programDateTime: today.addingTimeInterval(99), now: 200)
            }
        }
        let grid = SetTimeline.universal(segmentDuration: 2)
        for sink in [sinkA, sinkB] {
            for entry in sink.entries["720p"]! where entry.content == .real {
                #expect(entry.programDateTime == grid.start(of: entry.slot), "dated by its slot, not its capture time")
            }
        }
        let shared = Set(sinkA.slots("720p")).intersection(sinkB.slots("720p"))
        #expect(shared == Set((first + 19)..<(first + 23)))
    }

    /// A day down: every slot missed is a GAP entry (entry n is still slot n, no skip, no new
    /// run), listed in one batch per variant, dated on the grid.
    @Test func aRestartAfterADayListsEveryMissedSlotInOneBatch() {
        let grid = SetTimeline.universal(segmentDuration: 2)
        let first = 897_980_400
        let timeline = StreamTimeline(runs: [.init(firstEntry: 0, firstSlot: first)])
        let restored = SlotPublisher.Restored(entries: 10, timeline: timeline, lastProgramDateTime: grid.start(of: first + 9), lastDuration: 2)
        let back = today.addingTimeInterval(86_400 + 20.2)
        var (core, sink, clock) = box(startedAt: back, restored: restored)
        let now = grid.firstSlot(startingAt: back.addingTimeInterval(-0.5))
        #expect(sink.numberedFrom == nil, "a recording keeps its numbers")
        #expect(sink.gapBatches["720p"] == [now - (first + 10) - 1], "one GAP as any fill (the seam), the rest in one batch")
        #expect(sink.slots("720p") == Array((first + 10)..<now))
        #expect(sink.entries["720p"]!.allSatisfy { $0.content == .gap && $0.programDateTime == grid.start(of: $0.slot) })
        #expect(sink.entries["720p"]!.first!.discontinuity && !sink.entries["720p"]!.dropFirst().contains { $0.discontinuity })
        #expect(sink.timelines.isEmpty, "no new run")
        #expect(core.nextSlot(of: "720p") == now)
        #expect(core.timeline.slot(ofEntry: now - first) == now, "entry n is slot n past the outage")
        #expect(core.beginRun(now: clock.now) >= now)
    }
}
