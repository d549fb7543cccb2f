import Foundation
import HLSPlaylist
import SidelineCore
import StreamPublishing
import Testing

/// Every drill of issue 9 as events and clock moves: what each variant's playlist lists after
/// each step. Shapes: R real, S stand-in, C sibling copy, G gap, '|' a discontinuity before.
@Suite struct SlotPublisherTests {
    let all = ["720p", "360p", "180p"]

    /// A healthy pipeline: one real entry per slot, no fills, master once every rung listed.
    @Test func healthyStreamListsEveryRealSegment() {
        var drive = Drive()
        #expect(drive.core.beginRun(now: drive.now) == 0)
        #expect(drive.sink.masters.isEmpty, "no master before any media playlist can answer 200")
        for slot in 0..<5 {
            drive.advance(2)
            drive.deliver(slot, all)
        }
        drive.advance(0.9)
        for variant in all { #expect(drive.sink.shape(variant) == "RRRRR") }
        #expect(drive.sink.masters == [all])
    }

    /// The master waits for the slowest rung's first segment: until then its media playlist
    /// answers 503, and a player that opened it from the master would fail.
    @Test func masterWaitsForEveryRungsFirstEntry() {
        var drive = Drive()
        drive.startWithFirstSegment(of: ["360p", "180p"])
        #expect(drive.core.masterVariants == nil)
        #expect(drive.sink.masters.isEmpty)
        drive.advance(0.3)
        drive.deliver(0, ["720p"])
        #expect(drive.sink.masters == [all])
    }

    /// A stalled pipeline: every variant gets a stand-in at each slot's deadline (due + grace),
    /// one per D, framed by discontinuities and a date range of Sideline's CLASS; when a new
    /// run delivers, it follows a discontinuity and the span closes.
    @Test func stallIsFilledWithStandInsOnCadence() {
        var drive = Drive()
        _ = drive.core.beginRun(now: drive.now)
        for slot in 0..<3 {
            drive.advance(2)
            drive.deliver(slot, all)
        }
        // Slot 3 is due at +2 s; the grace is 1 s: nothing at 2.9 s, a stand-in by 3.0 s.
        drive.advance(2.9)
        #expect(drive.sink.shape("720p") == "RRR")
        drive.advance(0.1)
        #expect(drive.sink.shape("720p") == "RRR|S")
        // Five more seconds: slots 4 and 5 (deadlines at +5 and +7 from slot 2's arrival).
        drive.advance(4)
        #expect(drive.sink.shape("720p") == "RRR|SSS")
        #expect(drive.sink.slots("720p") == [0, 1, 2, 3, 4, 5])
        let opening = drive.sink.entries["720p"]![3]
        #expect(opening.dateRanges.count == 1)
        #expect(opening.dateRanges[0].classLabel == DateRange.standInClass)
        #expect(opening.dateRanges[0].endDate == nil)
        #expect(drive.sink.entries["720p"]![4].content == .standIn(copy: 1), "copies counted for continuity counters")
        // The stand-ins are dated on from the last real segment, D apart.
        let dates = drive.sink.entries["720p"]!.compactMap(\.programDateTime)
        for (a, b) in zip(dates, dates.dropFirst()) { #expect(abs(b.timeIntervalSince(a) - 2) < 1e-6) }

        // The watchdog starts a new pipeline at 113 s: slot 6 (112..114 s) began before it, so
        // it could not be delivered by its deadline; the pipeline starts at slot 7 and slot 6
        // gets its stand-in at 115 s.
        let first = drive.core.beginRun(now: drive.now)
        #expect(first == 7)
        drive.advance(2.5)
        drive.deliver(first, all)
        #expect(drive.sink.shape("720p") == "RRR|SSSS|R")
        #expect(drive.sink.slots("720p") == Array(0...7))
        let closing = drive.sink.entries["720p"]!.last!.dateRanges
        #expect(closing.count == 1 && closing[0].id == opening.dateRanges[0].id && closing[0].endDate != nil)
    }

    /// A real segment that arrives after its slot was filled is dropped, never listed over it.
    @Test func lateRealSegmentIsNotPublishedOverItsStandIn() {
        var drive = Drive()
        drive.startWithFirstSegment(of: all)
        drive.advance(3.2)
        #expect(drive.sink.shape("360p") == "R|S")
        #expect(drive.deliver(1, ["360p"]) == [.slotFilled(slot: 1)])
        #expect(drive.sink.shape("360p") == "R|S")
        // The next one is in time again.
        drive.advance(0.5)
        #expect(drive.deliver(2, ["360p"]) == [nil])
        #expect(drive.sink.shape("360p") == "R|S|R")
    }

    /// A pushed stream's backlog: segments that come after their slots were filled leave the
    /// live playlist as it was (stand-ins stay listed) and are taken by the recording in place
    /// of the fills, each slot once, never over a real segment, never a slot never filled.
    @Test func lateSegmentsReplaceTheirFillsOnceWhenAsked() {
        var drive = Drive(lateSegmentsReplaceFills: true)
        drive.startWithFirstSegment(of: all)
        // The uplink is cut for three slots: stand-ins at their deadlines.
        drive.advance(7.2)
        #expect(drive.sink.shape("720p") == "R|SSS")
        // The backlog arrives: slots 1 to 3 are refused for the live playlist...
        #expect(drive.deliver(2, ["720p"]) == [.slotFilled(slot: 2)])
        #expect(drive.sink.shape("720p") == "R|SSS", "the live playlist only grows")
        // ...and each is the recording's once.
        #expect(drive.core.takeLate(variant: "720p", slot: 2) == 2)
        #expect(drive.core.takeLate(variant: "720p", slot: 2) == nil, "nothing twice")
        #expect(drive.core.takeLate(variant: "720p", slot: 0) == nil, "a real segment is never replaced")
        #expect(drive.core.takeLate(variant: "720p", slot: 9) == nil, "a slot not listed yet is not late")
        #expect(drive.core.takeLate(variant: "360p", slot: 3) == 3, "each variant keeps its own")
        // Without the setting (a camera), a late segment is only dropped.
        var camera = Drive()
        camera.startWithFirstSegment(of: all)
        camera.advance(3.2)
        #expect(camera.core.takeLate(variant: "720p", slot: 1) == nil)
    }

    /// A restarted server: what the earlier process filled (from the recording) may still be
    /// replaced by a late segment; what it listed as real may not.
    @Test func fillsOfAnEarlierProcessStayReplaceable() {
        let restored = SlotPublisher.Restored(entries: 6, timeline: StreamTimeline(), lastProgramDateTime: Date(timeIntervalSince1970: 1_800_000_090),
                                              lastDuration: 2, replaceable: ["720p": [2, 3], "360p": [3]])
        var drive = Drive(restored: restored, now: 100, lateSegmentsReplaceFills: true)
        #expect(drive.core.takeLate(variant: "720p", slot: 2) == 2)
        #expect(drive.core.takeLate(variant: "720p", slot: 1) == nil)
        #expect(drive.core.takeLate(variant: "360p", slot: 2) == nil)
        #expect(drive.core.takeLate(variant: "360p", slot: 3) == 3)
    }

    /// After a skip (a run of the timeline begins later), a fill's entry is found by its slot.
    @Test func lateSegmentsFindTheirEntryAcrossASkip() {
        var drive = Drive(late: .stale, lateSegmentsReplaceFills: true)
        drive.startWithFirstSegment(of: all)
        // Nothing fills late slots (stale): the next run starts further on, after a skip.
        drive.advance(10)
        let first = drive.core.beginRun(now: drive.now)
        drive.advance(2)
        drive.deliver(first, all)
        #expect(drive.core.timeline.runs.count == 2)
        // A variant that fails now is filled: a GAP entry, as its siblings published the slot
        // without the tag a sibling's picture needs (`SeamSchedule`). A fill too.
        drive.advance(1.5)
        drive.deliver(first + 1, ["720p", "360p"])
        drive.core.variantFailed("180p")
        #expect(drive.sink.shape("180p") == "R|RG")
        #expect(drive.core.takeLate(variant: "180p", slot: first + 1) == 2, "entry 2: slot \(first + 1) of the second run")
    }

    /// One variant's encoder fails: by default its slots carry its nearest healthy sibling's
    /// segments (the lower one of two equally near) as soon as the sibling lists them; the
    /// master keeps listing it. Every change of picture falls on a seam, a slot no variant had
    /// published, which every variant tags (`SeamSchedule`): the slot its siblings published
    /// already is a GAP entry, and its own segments come back at the next seam.
    @Test func failedVariantCarriesItsSiblingsSegments() {
        var drive = Drive()
        drive.startWithFirstSegment(of: all)
        drive.advance(2)
        drive.deliver(1, ["720p", "180p"])
        drive.core.variantFailed("360p")
        drive.deliver(1, ["360p"]) // too late: the failure filled slot 1 already
        #expect(drive.sink.shape("360p") == "RG")
        for slot in 2..<4 {
            drive.advance(2)
            drive.deliver(slot, ["720p", "180p"])
        }
        #expect(drive.sink.shape("360p") == "RG|CC")
        #expect(drive.sink.entries["360p"]![2].content == .sibling("180p"))
        #expect(drive.sink.entries["360p"]![2].dateRanges.first?.classLabel == DateRange.siblingFillClass)
        #expect(drive.sink.masters == [all], "the failed rung stays in the master: it plays")
        // Back, but 720p published slot 4 first, untagged: 360p keeps a fill there (180p has not
        // listed it, so a GAP) and comes back at slot 5, which every variant tags.
        drive.advance(2)
        drive.deliver(4, all)
        #expect(drive.sink.shape("360p") == "RG|CCG")
        #expect(!drive.core.isFailed("360p"))
        drive.advance(2)
        drive.deliver(5, all)
        #expect(drive.sink.shape("360p") == "RG|CCG|R")
        for variant in all { #expect(drive.sink.entries[variant]!.map(\.discontinuity) == [false, false, true, false, false, true], "\(variant)") }
        // Slots stay aligned across the ladder.
        #expect(drive.sink.slots("360p") == drive.sink.slots("720p"))
    }

    /// Apple's semantics by configuration: GAP entries in step, the master leaves it out.
    @Test func gapPolicyListsGapsAndLeavesTheMasterWithoutTheVariant() {
        var drive = Drive(failure: .gap)
        drive.startWithFirstSegment(of: all)
        drive.core.variantFailed("720p")
        #expect(drive.sink.masters.last == ["360p", "180p"])
        for slot in 1..<3 {
            drive.advance(2)
            drive.deliver(slot, ["360p", "180p"])
        }
        #expect(drive.sink.shape("720p") == "RGG", "a GAP entry has no pictures: no tag")
        drive.advance(2)
        drive.deliver(3, all)
        #expect(drive.sink.shape("720p") == "RGG|R", "its encoder set up again after GAP entries: a new coded sequence")
        #expect(drive.sink.masters.last == all)
    }

    /// `on_variant_failure: standin`: the failed rung shows its own card at each deadline.
    @Test func standInPolicyForAFailedVariant() {
        var drive = Drive(failure: .standin)
        drive.startWithFirstSegment(of: all)
        drive.core.variantFailed("720p")
        drive.advance(2)
        drive.deliver(1, ["360p", "180p"])
        #expect(drive.sink.shape("720p") == "R")
        drive.advance(1)
        // Its siblings published slot 1 untagged: a GAP there, the card from the next slot on.
        #expect(drive.sink.shape("720p") == "RG")
        drive.advance(2)
        #expect(drive.sink.shape("720p") == "RG|S")
    }

    /// With every rung failed there is no sibling: stand-ins.
    @Test func noHealthySiblingFallsBackToStandIns() {
        var drive = Drive(variants: ["360p", "180p"])
        drive.startWithFirstSegment(of: ["360p", "180p"])
        drive.core.variantFailed("360p")
        drive.core.variantFailed("180p")
        drive.advance(3)
        #expect(drive.sink.shape("360p") == "R|S")
        #expect(drive.sink.shape("180p") == "R|S")
    }

    /// `on_late_segment: stale`: nothing fills a stall, and the new run skips the empty slots
    /// (a new run of the timeline, persisted) instead of going back.
    @Test func stalePolicyLeavesSlotsEmptyAndSkipsThem() {
        var drive = Drive(late: .stale)
        drive.startWithFirstSegment(of: all)
        drive.advance(12)
        #expect(drive.sink.shape("720p") == "R")
        let first = drive.core.beginRun(now: drive.now)
        #expect(first == 7)
        #expect(drive.sink.timelines.last == StreamTimeline(runs: [.init(firstEntry: 0, firstSlot: 0), .init(firstEntry: 1, firstSlot: 7)]))
        drive.advance(2)
        drive.deliver(first, all)
        #expect(drive.sink.shape("720p") == "R|R")
        #expect(drive.core.timeline.slot(ofEntry: 1) == 7)
    }

    /// `on_input_loss: stale` holds the core: the outage's slots stay empty and the camera's
    /// first segment back starts a new run after them.
    @Test func holdingLeavesAnOutageEmptyAndSkipsIt() {
        var drive = Drive()
        drive.startWithFirstSegment(of: all)
        drive.core.holding = true
        drive.advance(1)
        drive.deliver(1, all)
        #expect(drive.core.holding, "the last segment before the outage, finished late, keeps the hold")
        drive.advance(9)
        #expect(drive.sink.shape("720p") == "RR")
        drive.deliver(5, all)
        #expect(!drive.core.holding, "the camera's first segment ends the hold")
        #expect(drive.sink.slots("180p") == [0, 1, 5])
        #expect(drive.sink.shape("180p") == "RR|R", "the skipped span is a timestamp jump")
        #expect(drive.sink.timelines.last?.slot(ofEntry: 2) == 5)
    }

    /// A pipeline abandoned mid-slot leaves one rung a step behind: the next run brings it level.
    @Test func newRunBringsLaggingVariantsLevel() {
        var drive = Drive()
        drive.startWithFirstSegment(of: all)
        drive.advance(2)
        drive.deliver(1, ["360p", "180p"])
        let first = drive.core.beginRun(now: drive.now)
        #expect(drive.sink.slots("720p") == [0, 1])
        #expect(drive.sink.shape("720p") == "RG", "its siblings published slot 1 untagged: a GAP entry, not a card")
        #expect(first == 2)
    }

    /// kill -9 and restart 1 s later: the timeline continues from the recorded end, the slot
    /// the server missed is filled as it ends (no encoder can make it: a grace would only keep
    /// a player at the live edge waiting), stand-ins hold the cadence until the pipeline
    /// delivers, and the restored entries are followed by a discontinuity. (Before 2026-12-08
    /// the missed slot was skipped and the next waited out its grace: 6.9 s between two new
    /// entries across a restart, and GStreamer's playbin stalled.)
    @Test func restartedProcessFillsTheSlotItMissedAsItEnds() {
        let lastDate = Date(timeIntervalSince1970: 1_800_000_000 + 50)
        let restored = SlotPublisher.Restored(entries: 25, timeline: StreamTimeline(), lastProgramDateTime: lastDate, lastDuration: 2)
        // The recording ended at wall 52; the process starts at wall 53, in slot 25 (52..54).
        var drive = Drive(restored: restored, now: 53)
        #expect(drive.sink.masters == [all], "a restored recording is listed at once")
        #expect(drive.core.nextSlot(of: "720p") == 25)
        let first = drive.core.beginRun(now: drive.now)
        #expect(first == 26, "slot 25 began at 52, before now - grace/2")
        #expect(drive.sink.timelines.isEmpty, "no slot is skipped")
        // Slot 25 is filled as it ends, at 54.
        drive.advance(0.9)
        #expect(drive.sink.shape("720p") == "")
        drive.advance(0.2)
        #expect(drive.sink.shape("720p") == "|S")
        #expect(drive.sink.entries["720p"]![0].programDateTime == Date(timeIntervalSince1970: 1_800_000_000 + 52))
        // The camera is down: slot 26 (54..56), which the pipeline could still deliver, gets its
        // stand-in at its deadline, 57.
        drive.advance(2.8)
        #expect(drive.sink.shape("720p") == "|S")
        drive.advance(0.2)
        #expect(drive.sink.shape("720p") == "|SS")
        #expect(drive.sink.slots("720p") == [25, 26])
        // A pipeline opened at 57.1 s cannot deliver slot 27 (56..58 s) by its deadline.
        let second = drive.core.beginRun(now: drive.now)
        #expect(second == 28)
        // Slot 27 is filled as it ends (58): the new run starts after it.
        drive.advance(0.7)
        #expect(drive.sink.slots("720p") == [25, 26])
        drive.advance(0.2)
        #expect(drive.sink.slots("720p") == [25, 26, 27])
    }

    /// A restart 6 s after the recording's end: the three slots that passed are listed at once,
    /// in order, with their own dates; the one under way as it ends.
    @Test func slotsThatPassedWhileNoProcessRanAreListedAtOnce() {
        let restored = SlotPublisher.Restored(entries: 25, timeline: StreamTimeline(), lastProgramDateTime: Date(timeIntervalSince1970: 1_800_000_050),
                                              lastDuration: 2)
        var drive = Drive(restored: restored, now: 58.7)
        drive.advance(0)
        #expect(drive.sink.slots("360p") == [25, 26, 27], "slots 25..27 ended by 58")
        #expect(drive.sink.shape("360p") == "|SSS")
        #expect(drive.sink.entries["360p"]!.map { $0.programDateTime?.timeIntervalSince1970 } == [1_800_000_052, 1_800_000_054, 1_800_000_056])
        _ = drive.core.beginRun(now: drive.now)
        drive.advance(1.4)
        #expect(drive.sink.slots("360p") == [25, 26, 27, 28], "slot 28 (58..60) began before the pipeline: filled at its end")
    }

    /// Past half a minute no player is still waiting: the slots are skipped, as they are when
    /// nothing fills late slots.
    @Test func aLongerOutageOrAStalePolicySkipsTheMissedSlots() {
        let restored = SlotPublisher.Restored(entries: 25, timeline: StreamTimeline(), lastProgramDateTime: Date(timeIntervalSince1970: 1_800_000_050),
                                              lastDuration: 2)
        let long = Drive(restored: restored, now: 52 + 31)
        #expect(long.core.nextSlot(of: "720p") == 41)
        #expect(long.sink.timelines.last?.slot(ofEntry: 25) == 41)
        var filled = Drive(restored: restored, now: 52 + 29)
        #expect(filled.core.nextSlot(of: "720p") == 25)
        filled.advance(0)
        #expect(filled.sink.slots("720p") == Array(25...38))
        var stale = Drive(late: .stale, restored: restored, now: 58.7)
        #expect(stale.core.nextSlot(of: "720p") == 29)
        stale.advance(0)
        #expect(stale.sink.slots("720p") == [])
    }

    /// When an empty slot is filled: at its deadline while a running pipeline may still deliver
    /// it, at its end before the run's first slot, and before any run once it started more
    /// than half a grace ago.
    @Test func aSlotNoEncoderCanDeliverIsFilledAsItEnds() {
        var cadence = SlotCadence(segmentDuration: 2, grace: 1)
        #expect(cadence.fillTime(of: 3, runFirstSlot: nil) == nil, "no anchor, no time")
        cadence.anchor(slot: 3, startingAt: 10)
        #expect(cadence.fillTime(of: 3, runFirstSlot: 3) == 13)
        #expect(cadence.fillTime(of: 3, runFirstSlot: 4) == 12)
        #expect(cadence.fillTime(of: 3, runFirstSlot: nil) == 12)
        // A grace over twice the segment: the first slot of a run started at 12.5 may be slot 3.
        var long = SlotCadence(segmentDuration: 2, grace: 5)
        long.anchor(slot: 3, startingAt: 10)
        #expect(long.fillTime(of: 3, runFirstSlot: nil) == 12.5)
        #expect(long.firstSlot(startingAfter: 12.4, notBefore: 0) == 3)
    }

    /// Aligned tags, and an encoder that fails with its slot's parts out: the parts are its
    /// entry, cut where it stopped, so its next entry follows a hole in its timestamps and must
    /// carry EXT-X-DISCONTINUITY. The seam for it is declared as it fails, while every sibling
    /// is still on that slot, so the next slot is tagged in every variant. (Before 2026-12-08 the
    /// seam came only when the cut was listed at the slot's deadline, a slot later: the entry
    /// after the hole went untagged, and GStreamer 1.22's hlsdemux2, which checks a fragment's
    /// first timestamp against the playlist, re-synced in a loop until it gave up: "Couldn't
    /// download fragments", PlayThroughEndToEndTests' failure drill with alignment on.)
    @Test func anEncoderFailingWithItsPartsOutTagsTheNextSlotEverywhere() {
        var drive = Drive(aligns: true)
        drive.startWithFirstSegment(of: ["720p", "360p", "180p"])
        for name in ["720p", "360p", "180p"] {
            _ = drive.core.partArrived(variant: name, slot: 1, index: 0, programDateTime: drive.wallNow, now: drive.now)
        }
        drive.advance(0.4)
        drive.core.variantFailed("720p")
        for _ in 0..<4 {
            for name in ["360p", "180p"] { drive.core.encoderProgressed(variant: name, now: drive.now) }
            drive.advance(0.4)
        }
        drive.deliver(1, ["360p", "180p"])
        drive.advance(2)
        drive.deliver(2, ["360p", "180p"])
        drive.advance(2)
        drive.deliver(3, ["360p", "180p"])
        #expect(drive.sink.shape("720p").hasPrefix("RP|C"), "the cut, then its sibling's copy after a tag: \(drive.sink.shape("720p"))")
        #expect(drive.sink.shape("360p").hasPrefix("RR|R"), "\(drive.sink.shape("360p"))")
        #expect(drive.sink.shape("180p").hasPrefix("RR|R"), "\(drive.sink.shape("180p"))")
    }

    /// A long outage of the server: the slots it was down for are skipped, not filled.
    @Test func restartAfterHoursSkipsInsteadOfFilling() {
        let lastDate = Date(timeIntervalSince1970: 1_800_000_000)
        let restored = SlotPublisher.Restored(entries: 10, timeline: StreamTimeline(), lastProgramDateTime: lastDate, lastDuration: 2)
        var drive = Drive(restored: restored, now: 7200)
        // The recording ended at wall 2 s; slot 3609 starts at 2 + 3599 x 2 = 7200 s, now.
        #expect(drive.core.nextSlot(of: "360p") == 3609)
        _ = drive.core.beginRun(now: drive.now)
        drive.advance(10)
        #expect(drive.sink.entries["360p"]!.count <= 5)
    }
}

@Suite struct StreamTimelineTests {
    @Test func entriesMapToSlotsAcrossRuns() throws {
        var timeline = StreamTimeline()
        #expect(timeline.slot(ofEntry: 9) == 9)
        timeline.skip(toSlot: 40, atEntry: 10)
        #expect(timeline.slot(ofEntry: 10) == 40)
        #expect(timeline.slot(ofEntry: 12) == 42)
        #expect(timeline.slot(ofEntry: 3) == 3)
        #expect(timeline.entry(ofSlot: 41) == 11)
        let data = try JSONEncoder().encode(timeline)
        #expect(try JSONDecoder().decode(StreamTimeline.self, from: data) == timeline)
    }
}

@Suite struct WatchdogRuleTests {
    let rule = WatchdogRule(timeout: 5, segmentDuration: 2)

    @Test func firstSegmentGetsOneSegmentMore() {
        #expect(rule.stuckFor(startedAt: 0, lastAccepted: nil, now: 6.9) == nil)
        #expect(rule.stuckFor(startedAt: 0, lastAccepted: nil, now: 7.1) != nil)
    }

    @Test func quietAfterASegmentCounts() {
        #expect(rule.stuckFor(startedAt: 0, lastAccepted: 10, now: 14.9) == nil)
        #expect(rule.stuckFor(startedAt: 0, lastAccepted: 10, now: 15.1) != nil)
        // A segment accepted before this run started does not count for it.
        #expect(rule.stuckFor(startedAt: 20, lastAccepted: 10, now: 26) == nil)
        #expect(WatchdogRule(timeout: 0, segmentDuration: 2).stuckFor(startedAt: 0, lastAccepted: nil, now: 1000) == nil)
    }
}

@Suite struct RestoredRecordingTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aRecordingContinuesFromItsLastDatedEntryAndTheGapsAfterIt() throws {
        let entries = [
            MediaSegment(uri: "000000.ts", duration: 2, programDateTime: start),
            MediaSegment(uri: "000001.ts", duration: 1.5, programDateTime: start.addingTimeInterval(2)),
            MediaSegment(uri: "000002.ts", duration: 2, gap: true),
        ]
        let restored = try #require(SlotPublisher.Restored(recorded: entries, timeline: nil))
        #expect(restored == SlotPublisher.Restored(entries: 3, timeline: StreamTimeline(), lastProgramDateTime: start.addingTimeInterval(2), lastDuration: 3.5))
        #expect(SlotPublisher.Restored(recorded: [], timeline: nil) == nil, "nothing recorded: a new recording")
        let undated = try #require(SlotPublisher.Restored(recorded: [MediaSegment(uri: "000000.ts", duration: 2)], timeline: nil))
        #expect(undated.lastProgramDateTime == nil && undated.lastDuration == 2)
    }
}

/// A rung shed at start (`CapacityPlan.shedRungs`): never encoded, out of the master, its slots
/// its nearest sibling's segments from the first, so a player on it plays on and its recording
/// stays aligned with the ladder's.
@Suite struct ShedRungTests {
    @Test func aShedRungCarriesItsSiblingAndLeavesTheMaster() {
        let sink = RecordingSink()
        let settings = SlotPublisher.Settings(variants: ["720p", "360p", "180p"], segmentDuration: 2, grace: 1, onVariantFailure: .standin, shed: ["720p"])
        @Carried(into: sink) var core = SlotPublisher(settings: settings, now: 100, wallNow: Date(timeIntervalSince1970: 1_800_000_100))
        _ = core.beginRun(now: 100)
        for slot in 0..<3 {
            for variant in ["360p", "180p"] {
                core.segmentArrived(variant: variant, slot: slot, duration: 2, programDateTime: Date(timeIntervalSince1970: 1_800_000_100 + Double(slot) * 2),
                                    now: 102 + Double(slot) * 2)
            }
            core.tick(now: 102.5 + Double(slot) * 2)
        }
        #expect(sink.masters.last == ["360p", "180p"])
        #expect(sink.shape("720p") == "CCC", "its sibling's copies whatever on_variant_failure says: it has no stand-in")
        #expect(sink.entries["720p"]!.allSatisfy { $0.content == .sibling("360p") })
        #expect(sink.slots("720p") == sink.slots("360p"))
        #expect(core.isFailed("720p"))
    }
}

extension ShedRungTests {
    /// Shed while running, then taken back: out of the master and back; sibling copies from the
    /// first slot no variant published; its own segments again at a seam every variant tags.
    @Test func aRungShedWhileRunningComesBackAtASeam() {
        var drive = Drive()
        drive.startWithFirstSegment(of: ["720p", "360p", "180p"])
        drive.core.shed("720p")
        #expect(drive.sink.masters.last == ["360p", "180p"])
        for slot in 1..<3 {
            drive.advance(2)
            drive.deliver(slot, ["360p", "180p"])
            drive.deliver(slot, ["720p"]) // frames still in its queue: they change nothing
        }
        drive.core.encoderProgressed(variant: "720p", now: drive.now)
        #expect(drive.core.isFailed("720p"), "a shed rung's last frames do not bring it back")
        // Slot 1: 360p published it untagged before 720p's copy could take it, so a GAP entry;
        // the copies from slot 2, the seam.
        #expect(drive.sink.shape("720p") == "RG|C")
        drive.core.restore("720p")
        #expect(drive.sink.masters.last == ["720p", "360p", "180p"])
        drive.advance(2)
        _ = drive.core.partArrived(variant: "720p", slot: 3, index: 0, programDateTime: drive.wallNow, now: drive.now)
        drive.deliver(3, ["720p", "360p", "180p"])
        #expect(drive.sink.shape("720p") == "RG|C|R")
        for variant in ["360p", "180p"] { #expect(drive.sink.entries[variant]!.map(\.discontinuity) == [false, false, true, true], "\(variant)") }
    }
}

extension ShedRungTests {
    /// The input leaves a shed rung out at once, mid-segment, so its muxer closes the segment
    /// it was making only when the rung is taken back and gets frames again: minutes after its
    /// slot was filled. The core tells it from a late segment (the capacity run logged one
    /// "late" segment dropped at each shed and return); a late one stays `slotFilled`, and the
    /// rung's own segments after it clear the mark.
    @Test func theSegmentAShedRungWasMakingIsNotALateSegment() {
        var drive = Drive()
        drive.startWithFirstSegment(of: ["720p", "360p", "180p"])
        drive.advance(1)
        drive.core.shed("720p") // while slot 1 is being made
        for slot in 1..<4 {
            drive.advance(slot == 1 ? 1 : 2)
            drive.deliver(slot, ["360p", "180p"])
        }
        drive.core.restore("720p")
        drive.advance(2)
        #expect(drive.deliver(1, ["720p"]) == [.unfinishedWhenShed(slot: 1)], "the segment it was making, closed as it came back")
        drive.core.encoderProgressed(variant: "720p", now: drive.now)
        drive.deliver(4, ["720p", "360p", "180p"])
        #expect(drive.sink.shape("720p").hasSuffix("R"), "\(drive.sink.shape("720p"))")
        drive.advance(4.5)
        drive.deliver(6, ["360p", "180p"])
        drive.advance(0.5)
        #expect(drive.deliver(5, ["720p"]) == [.slotFilled(slot: 5)], "a late segment after its own came back is late")
    }
}

/// A late rung is waited for; a slot before the current run's first is not its encoder's to make.
@Suite struct LateRungTests {
    @Test func anAliveEncoderIsWaitedForButNotForSlotsBeforeItsRun() {
        var drive = Drive()
        drive.startWithFirstSegment(of: ["720p", "360p", "180p"])
        // Eight seconds with every encoder saying it is busy, and no segment: nothing is filled.
        for _ in 0..<32 {
            drive.advance(0.25)
            for variant in ["720p", "360p", "180p"] { drive.core.encoderProgressed(variant: variant, now: drive.now) }
        }
        #expect(drive.sink.shape("720p") == "R", "late, not replaced")
        // The watchdog starts a new run: its encoders are alive at once, but they make nothing
        // before their first slot, so the slots before it are filled at their deadlines.
        let first = drive.core.beginRun(now: drive.now)
        #expect(first > 1)
        for _ in 0..<4 {
            drive.advance(0.25)
            for variant in ["720p", "360p", "180p"] { drive.core.encoderProgressed(variant: variant, now: drive.now) }
        }
        #expect(drive.sink.slots("720p") == Array(0..<first), "every slot before the run's first is listed: \(drive.sink.shape("720p"))")
    }
}

extension ShedRungTests {
    /// Taken back, a rung lists the segment its encoder finishes first, then makes nothing until
    /// its input gives it frames again at the next segment start: its encoder is silent for a
    /// moment while the camera's frames reach every sibling. Its late slot is its sibling's copy,
    /// never a stand-in card (capacity run of 2026-12-07, 19:46:46: a card at every rung back).
    /// Both ways: alignment on (the core's mechanism) and off (the server, `Settings.alignsDiscontinuities`).
    @Test(arguments: [true, false])
    func aRungTakenBackThatFallsSilentCarriesItsSiblingNotACard(aligns: Bool) {
        var drive = Drive(aligns: aligns)
        drive.startWithFirstSegment(of: ["720p", "360p", "180p"])
        drive.core.shed("720p")
        drive.advance(2)
        drive.deliver(1, ["360p", "180p"])
        drive.core.restore("720p")
        drive.advance(0.5)
        // Slot 2 ends: 720p's encoder, fed again, finishes it first and is listed (recovered).
        drive.advance(1.5)
        drive.deliver(2, ["720p"])
        drive.deliver(2, ["360p", "180p"])
        #expect(!drive.core.isFailed("720p"))
        // Then 720p says nothing for slot 3 while its siblings list it on time, and past its deadline.
        for step in 1...14 {
            drive.advance(0.25)
            for variant in ["360p", "180p"] { drive.core.encoderProgressed(variant: variant, now: drive.now) }
            if step == 8 { drive.deliver(3, ["360p", "180p"]) }
        }
        #expect(!drive.sink.shape("720p").contains("S"), "a card while the camera's frames arrive: \(drive.sink.shape("720p"))")
        #expect(drive.sink.slots("720p") == [0, 1, 2, 3])
        if !aligns {
            #expect(drive.sink.entries["720p"]!.last?.content == .sibling("360p"), "\(drive.sink.shape("720p"))")
        }
    }
}
