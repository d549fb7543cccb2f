import Foundation
import HLSPlaylist
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

    /// `encodes`: a stream this box encodes (its stand-ins in the rung's own format), not a pushed one.
    func box(startedAt wallNow: Date, restored: SlotPublisher.Restored? = nil, late: LateSegmentFill = .standin, pair: Bool = true,
             encodes: Bool = true) -> (SlotPublisher, RecordingSink, ManualClock) {
        let sink = RecordingSink()
        let settings = SlotPublisher.Settings(variants: all, segmentDuration: 2, grace: 1, onLateSegment: late,
                                              setTimeline: .universal(segmentDuration: 2), pairStartsWithGaps: pair, standInsMatchTheEncoding: encodes)
        let core = SlotPublisher(settings: settings, restored: restored, now: 100, wallNow: wallNow)
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
        let (madeA, sinkA, aClock) = box(startedAt: today.addingTimeInterval(0.2))
        @Carried(into: sinkA) var a = madeA
        // B: 37.3 s later on the wall, and a monotonic clock of its own.
        let (madeB, sinkB, bClock) = box(startedAt: today.addingTimeInterval(37.5))
        @Carried(into: sinkB) var b = madeB
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

    /// Half a day down: every slot missed is a GAP entry (entry n is still slot n, no skip, no new
    /// run), listed in one batch per variant, dated on the grid.
    @Test func aRestartAfterHalfADayListsEveryMissedSlotInOneBatch() {
        let grid = SetTimeline.universal(segmentDuration: 2)
        let first = 897_980_400
        let timeline = StreamTimeline(runs: [.init(firstEntry: 0, firstSlot: first)])
        let restored = SlotPublisher.Restored(entries: 10, timeline: timeline, lastProgramDateTime: grid.start(of: first + 9), lastDuration: 2)
        let back = today.addingTimeInterval(43_200 + 20.2)
        let (madeCore, sink, clock) = box(startedAt: back, restored: restored)
        @Carried(into: sink) var core = madeCore
        let now = grid.firstSlot(startingAt: back.addingTimeInterval(-0.5))
        #expect(sink.numberedFrom == nil, "a recording keeps its numbers")
        #expect(sink.gapBatches["720p"] == [now - (first + 10) - 1], "one GAP as any fill (the seam), the rest in one batch")
        #expect(sink.slots("720p") == Array((first + 10)..<now))
        #expect(sink.entries["720p"]!.allSatisfy { $0.content == .gap && $0.programDateTime == grid.start(of: $0.slot) })
        #expect(!sink.entries["720p"]!.contains { $0.discontinuity }, "timestamps on the grid follow on: no box-local discontinuity")
        #expect(sink.timelines.isEmpty, "no new run")
        #expect(core.nextSlot(of: "720p") == now)
        #expect(core.timeline.slot(ofEntry: now - first) == now, "entry n is slot n past the outage")
        #expect(core.beginRun(now: clock.now) >= now)
    }

    /// A recording continues on the universal grid only when it is numbered by it, ended less
    /// than a day ago, and not after this box's clock; else a new one begins (the old kept).
    @Test func whichRecordingsTheUniversalGridContinues() {
        let grid = SetTimeline.universal(segmentDuration: 2)
        let first = 897_980_400
        let entries = (0..<5).map { MediaSegment(uri: "\(first + $0).ts", duration: 2, programDateTime: grid.start(of: first + $0)) }
        let end = grid.start(of: first + 5)
        #expect(grid.reasonNotToContinue(entries, mediaSequence: first, now: end.addingTimeInterval(30)) == nil)
        #expect(grid.reasonNotToContinue(entries, mediaSequence: first, now: end.addingTimeInterval(86_000)) == nil)
        #expect(grid.reasonNotToContinue(entries, mediaSequence: first, now: end.addingTimeInterval(86_401))?.contains("more than a day ago") == true)
        #expect(grid.reasonNotToContinue(entries, mediaSequence: 0, now: end)?.contains("before `redundancy` was set") == true, "numbered from 0")
        #expect(grid.reasonNotToContinue(entries, mediaSequence: first, now: end.addingTimeInterval(-60))?.contains("check the clock") == true)
        #expect(grid.reasonNotToContinue([MediaSegment(uri: "a.ts", duration: 2)], mediaSequence: 0, now: end) == nil, "nothing dated: nothing to disagree with")
        #expect(SetTimeline(epoch: today, segmentDuration: 2).reasonNotToContinue(entries, mediaSequence: 0, now: end) == nil, "a set's own grid is judged elsewhere")
    }

    @Test func aClockBeforeNTPSetItIsRefused() {
        #expect(!SetTimeline.isPlausibleClock(Date(timeIntervalSince1970: 0)))
        #expect(!SetTimeline.isPlausibleClock(Date(timeIntervalSince1970: 1_600_000_000)))
        #expect(SetTimeline.isPlausibleClock(today))
    }

    /// A clock stepped forward under a running pipeline: its next segment lands an hour of
    /// slots ahead; the hour is GAP entries in one batch, not 1,800 stand-ins one by one.
    @Test func aSegmentFarAheadIsReachedByGapsInOneBatch() {
        let (madeCore, sink, clock) = box(startedAt: today)
        @Carried(into: sink) var core = madeCore
        let first = 897_980_400
        _ = core.beginRun(now: clock.now)
        for variant in all { core.segmentArrived(variant: variant, slot: first, duration: 2, programDateTime: today, now: 102) }
        let ahead = first + 1 + 1800
        for variant in all { core.segmentArrived(variant: variant, slot: ahead, duration: 2, programDateTime: today, now: 104) }
        #expect(sink.gapBatches["720p"] == [1799])
        #expect(sink.slots("360p") == Array(first...ahead))
        #expect(sink.entries["720p"]!.dropFirst().dropLast().allSatisfy { $0.content == .gap })
        #expect(sink.entries["720p"]!.last!.content == .real)
    }

    /// On the universal grid a box lists EXT-X-DISCONTINUITY only around another format (a
    /// sibling's picture; a pushed stream's stand-in): a new run of its encoder, a restart, GAP
    /// entries, a camera back after an outage and a stand-in of a stream it encodes (the rung's
    /// own SPS, restamped onto its slot) follow the grid's timestamps in the rung's format, and a
    /// tag there would be this box's alone, giving the same segment another Discontinuity
    /// Sequence Number than the other box's (RFC 8216 §6.2.4). On a grid of one box's own, a new
    /// run still starts one.
    @Test(arguments: [true, false])
    func onlyAnotherFormatIsADiscontinuity(encodes: Bool) {
        let first = 897_980_400
        let (madeCore, sink, _) = box(startedAt: today, encodes: encodes)
        @Carried(into: sink) var core = madeCore
        _ = core.beginRun(now: 100)
        for variant in all { core.segmentArrived(variant: variant, slot: first, duration: 2, programDateTime: today, now: 102) }
        // Slot first + 1 passes without a segment: a stand-in.
        core.tick(now: 106)
        for variant in all { core.segmentArrived(variant: variant, slot: first + 2, duration: 2, programDateTime: today, now: 106.5) }
        // A new run of the encoder (the watchdog's), then the camera back after an outage.
        _ = core.beginRun(now: 107)
        for variant in all { core.segmentArrived(variant: variant, slot: first + 3, duration: 2, programDateTime: today, now: 108) }
        for variant in all {
            core.segmentArrived(variant: variant, slot: first + 4, duration: 2, programDateTime: today, now: 110,
                                marks: SegmentMarks(dateRanges: [], discontinuity: true))
        }
        let listed = sink.entries["720p"]!.map { ($0.slot - first, $0.content, $0.discontinuity) }
        #expect(listed.map { if case .standIn = $0.1 { "stand-in" } else { "\($0.1)" } } == ["real", "stand-in", "real", "real", "real"], "\(listed)")
        #expect(listed.map(\.2) == (encodes ? [false, false, false, false, false] : [false, true, true, false, false]),
                "none for a stand-in in the rung's format, around a pushed stream's: \(listed)")
        #expect(core.partArrived(variant: "720p", slot: first + 5, index: 0, programDateTime: today, now: 111)?.discontinuity == false,
                "the next part of its own segment starts none either")
        // A failed rung on a box of a pair: GAP entries, which the edge asks the other box for
        // (`fillPolicy`), not its sibling's picture: that would be another format, a seam every
        // rung here would tag and the other box would not. Nothing is tagged, in any rung.
        core.variantFailed("360p")
        core.segmentArrived(variant: "720p", slot: first + 5, duration: 2, programDateTime: today, now: 112)
        core.segmentArrived(variant: "720p", slot: first + 6, duration: 2, programDateTime: today, now: 114)
        core.segmentArrived(variant: "360p", slot: first + 7, duration: 2, programDateTime: today, now: 116)
        core.segmentArrived(variant: "720p", slot: first + 7, duration: 2, programDateTime: today, now: 116)
        let failed = sink.entries["360p"]!.suffix(3).map { ($0.content, $0.discontinuity) }
        #expect(failed.map(\.0) == [.gap, .gap, .real] && failed.map(\.1) == [false, false, false], "GAP entries and back: \(failed)")
        #expect(sink.entries["720p"]!.suffix(3).map(\.discontinuity) == [false, false, false])

        // A grid of one box's own (a set's): a new run is still a discontinuity.
        let sinkOwn = RecordingSink()
        @Carried(into: sinkOwn) var own = SlotPublisher(settings: .init(variants: all, segmentDuration: 2, grace: 1, onLateSegment: .standin,
                                                                        setTimeline: SetTimeline(epoch: today, segmentDuration: 2)),
                                                        now: 100, wallNow: today)
        _ = own.beginRun(now: 100)
        for variant in all { own.segmentArrived(variant: variant, slot: 0, duration: 2, programDateTime: today, now: 102) }
        _ = own.beginRun(now: 103)
        #expect(own.partArrived(variant: "720p", slot: 1, index: 0, programDateTime: today, now: 103.5)?.discontinuity == true)
        for variant in all { own.segmentArrived(variant: variant, slot: 1, duration: 2, programDateTime: today, now: 104) }
        #expect(sinkOwn.entries["720p"]!.map(\.discontinuity) == [false, true])
    }

    /// A run whose audio is not the stand-in's (a camera that lost or gained its sound: another
    /// number of tracks) has its stand-ins tagged, as before; and whether a stream's stand-ins
    /// join its segments at all (`standInsJoinTheEncoding`).
    @Test func aStandInThatIsNotTheRunsFormatIsTagged() {
        let first = 897_980_400
        for matches in [true, false] {
            let (madeCore, sink, _) = box(startedAt: today, pair: false)
            @Carried(into: sink) var core = madeCore
            _ = core.beginRun(now: 100, standInMatchesRun: matches)
            for variant in all { core.segmentArrived(variant: variant, slot: first, duration: 2, programDateTime: today, now: 102) }
            core.tick(now: 106)
            for variant in all { core.segmentArrived(variant: variant, slot: first + 2, duration: 2, programDateTime: today, now: 106.5) }
            let listed = sink.entries["720p"]!.map { ($0.content == .real, $0.discontinuity) }
            #expect(listed.map(\.0) == [true, false, true], "\(listed)")
            #expect(listed.map(\.1) == (matches ? [false, false, false] : [false, true, true]), "matches \(matches): \(listed)")
        }
        #expect(SlotPublishingSettings.standInsJoinTheEncoding(isPushed: false, standInDurations: [2, 2], segmentDuration: 2))
        #expect(!SlotPublishingSettings.standInsJoinTheEncoding(isPushed: true, standInDurations: [2], segmentDuration: 2), "a pushed stream: the sender's encoder")
        #expect(!SlotPublishingSettings.standInsJoinTheEncoding(isPushed: false, standInDurations: [59 * 1001.0 / 30000], segmentDuration: 2), "29.97 fps: a frame short of its slot")
        #expect(!SlotPublishingSettings.standInsJoinTheEncoding(isPushed: false, standInDurations: [], segmentDuration: 2), "no stand-ins")
    }

    /// A run of the encoder starting on a box of a pair leaves its first slots GAP entries (the
    /// other box has their pictures), up to three; a longer start gets the policy's stand-ins.
    /// A restart thus adds no EXT-X-DISCONTINUITY of its own. A box with no pair keeps its
    /// stand-ins.
    @Test func aStartingRunLeavesGapsNotStandIns() {
        let first = 897_980_400
        let (madeCore, sink, _) = box(startedAt: today)
        @Carried(into: sink) var core = madeCore
        _ = core.beginRun(now: 100)
        // The encoder's first segment is for slot first + 2: slots first and first + 1 passed.
        core.tick(now: 105.5)
        for variant in all { core.segmentArrived(variant: variant, slot: first + 2, duration: 2, programDateTime: today, now: 106) }
        var listed = sink.entries["720p"]!.map { ($0.content == .gap ? "gap" : $0.content == .real ? "real" : "fill", $0.discontinuity) }
        #expect(listed.map(\.0) == ["gap", "gap", "real"] && !listed.contains { $0.1 }, "\(listed)")
        // A new run that takes longer to start: three GAP entries, then stand-ins.
        _ = core.beginRun(now: 106.5)
        core.tick(now: 118)
        listed = sink.entries["720p"]!.dropFirst(3).map { ($0.content == .gap ? "gap" : $0.content == .real ? "real" : "fill", $0.discontinuity) }
        #expect(listed.map(\.0) == ["gap", "gap", "gap", "fill", "fill"], "\(listed)")
        // A box of a venue with no pair: nobody else has those pictures, so the policy's stand-ins.
        let (madeAlone, aloneSink, _) = box(startedAt: today, pair: false)
        @Carried(into: aloneSink) var alone = madeAlone
        _ = alone.beginRun(now: 100)
        alone.tick(now: 105.5)
        #expect(aloneSink.entries["720p"]!.allSatisfy { if case .standIn = $0.content { true } else { false } } && aloneSink.entries["720p"]!.count == 2)
    }
}

