import Foundation
import HLSPlaylist
import SidelineCore
import SidelineTesting
import StreamPublishing
import Testing

@Suite struct SetTimelineTests {
    let epoch = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func slotsAndStartsOnTheGrid() {
        let grid = SetTimeline(epoch: epoch, segmentDuration: 2)
        #expect(grid.slot(of: epoch) == 0)
        #expect(grid.slot(of: epoch.addingTimeInterval(3.999)) == 1)
        #expect(grid.slot(of: epoch.addingTimeInterval(-0.5)) == -1)
        #expect(grid.start(of: 5) == epoch.addingTimeInterval(10))
        #expect(grid.firstSlot(startingAt: epoch.addingTimeInterval(9.5)) == 5)
        #expect(grid.firstSlot(startingAt: epoch.addingTimeInterval(-30)) == 0)
        #expect(grid.outputTime(of: epoch.addingTimeInterval(12.25)) == 12.25)
        #expect(grid.slot(dated: epoch.addingTimeInterval(10.02)) == 5)
        #expect(grid.slot(dated: epoch.addingTimeInterval(11)) == nil, "mid-slot: another grid")
    }

    /// A new set starts on the next multiple of D since 1970 (so clocks that agree share the
    /// grid); one that continues a recording puts that recording's slot where it is.
    @Test func startingAndContinuing() throws {
        let started = SetTimeline.starting(at: Date(timeIntervalSince1970: 1_800_000_003.123_456), segmentDuration: 2)
        #expect(started.epoch == Date(timeIntervalSince1970: 1_800_000_004))
        #expect(SetTimeline.starting(at: Date(timeIntervalSince1970: 1_800_000_004), segmentDuration: 2).epoch == Date(timeIntervalSince1970: 1_800_000_004))
        #expect(SetTimeline.starting(at: Date(timeIntervalSince1970: 1_800_000_003.123), segmentDuration: 1.5).epoch == Date(timeIntervalSince1970: 1_800_000_004.5))
        let continued = SetTimeline.continuing(slot: 40, dated: epoch.addingTimeInterval(500), segmentDuration: 2)
        #expect(continued.start(of: 40) == epoch.addingTimeInterval(500))
        let decoded = try JSONDecoder().decode(SetTimeline.self, from: try JSONEncoder().encode(continued))
        #expect(decoded == continued)
        let json = String(decoding: try JSONEncoder().encode(SetTimeline(epoch: Date(timeIntervalSince1970: 1_800_000_000.123), segmentDuration: 2)), as: UTF8.self)
        #expect(json.contains("\"epoch_unix_ms\":1800000000123") && json.contains("2027-01-15T08:00:00.123Z"), "\(json)")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SetTimeline.self, from: Data(#"{"epoch_unix_ms":0,"segment_duration":0}"#.utf8)) }
    }

    /// A set's first angle to start: the kept timeline while an angle has a recording on it;
    /// continued from a recording when none is kept (or the segment duration changed); new
    /// when no angle has a recording (the kept one meant recordings that are gone).
    @Test func whichTimelineASetRunsOn() {
        let kept = SetTimeline(epoch: epoch, segmentDuration: 2)
        let now = epoch.addingTimeInterval(5_000.25)
        let recorded = [(slot: 30, date: epoch.addingTimeInterval(1_000))]
        #expect(SetTimeline.choose(kept: kept, recorded: recorded, segmentDuration: 2, now: now) == (kept, false))
        let continued = SetTimeline.choose(kept: nil, recorded: recorded, segmentDuration: 2, now: now)
        #expect(continued.isNew && continued.timeline.start(of: 30) == epoch.addingTimeInterval(1_000))
        #expect(SetTimeline.choose(kept: kept, recorded: recorded, segmentDuration: 4, now: now).timeline.segmentDuration == 4)
        #expect(SetTimeline.choose(kept: kept, recorded: [], segmentDuration: 2, now: now) == (SetTimeline(epoch: epoch.addingTimeInterval(5_002), segmentDuration: 2), true))
    }

    /// Whether a recording lies on the grid: its last dated entry dated its slot's start.
    @Test func recordingOnTheGridOrNot() {
        let grid = SetTimeline(epoch: epoch, segmentDuration: 2)
        let on = (0..<3).map { MediaSegment(uri: "\($0).ts", duration: 2, programDateTime: grid.start(of: $0)) }
        #expect(grid.holds(on, timeline: StreamTimeline()))
        #expect(!grid.holds(on, timeline: StreamTimeline(runs: [.init(firstEntry: 0, firstSlot: 7)])), "dated slot 2, numbered slot 9")
        let off = on.map { MediaSegment(uri: $0.uri, duration: 2, programDateTime: $0.programDateTime!.addingTimeInterval(0.7)) }
        #expect(!grid.holds(off, timeline: StreamTimeline()))
        #expect(grid.holds([], timeline: StreamTimeline()))
    }
}

/// An angle of a set in the slot publisher: the set's slots, dates and entry numbers, whenever
/// its camera starts, through an outage and a restart. Monotonic time 100 is the epoch.
@Suite struct SetAngleSlotTests {
    let epoch = Date(timeIntervalSince1970: 1_800_000_000)
    let all = ["720p", "360p"]

    func angle(late: LateSegmentFill = .standin, restored: SlotPublisher.Restored? = nil, now: Double = 100) -> (SlotPublisher, RecordingSink, ManualClock) {
        let sink = RecordingSink()
        let settings = SlotPublisher.Settings(variants: all, segmentDuration: 2, grace: 1, onLateSegment: late,
                                              setTimeline: SetTimeline(epoch: epoch, segmentDuration: 2))
        let core = SlotPublisher(settings: settings, restored: restored, now: now, wallNow: epoch.addingTimeInterval(now - 100))
        return (core, sink, ManualClock(now))
    }

    /// A camera that starts 10 s after its set: its pipeline begins at slot 5; slots 0-4 are
    /// filled by its policy (stand-ins) as their deadlines pass, and slot 5 is its first real
    /// entry, entry 5, dated epoch + 5 x D whatever its capture time said.
    @Test func angleStartingLateFillsTheSlotsBefore() {
        let (madeCore, sink, clock) = angle()
        @Carried(into: sink) var core = madeCore
        advance(clock, by: 9.6) { core.tick(now: $0) }
        #expect(core.beginRun(now: clock.now) == 5)
        advance(clock, by: 2.4) { core.tick(now: $0) }
        for variant in all {
            #expect(core.segmentArrived(variant: variant, slot: 5, duration: 2, programDateTime: epoch.addingTimeInterval(10.021), now: clock.now) == nil)
        }
        #expect(sink.shape("720p") == "SSSSS|R")
        #expect(sink.slots("720p") == [0, 1, 2, 3, 4, 5])
        let dates = sink.entries["720p"]!.map(\.programDateTime)
        #expect(dates == (0...5).map { epoch.addingTimeInterval(Double($0) * 2) })
    }

    /// Two angles, one started at once and one 10 s later: entry n of both is slot n, dated alike.
    @Test func twoAnglesListSlotNAsEntryNDatedAlike() {
        let (madeEarly, earlySink, clock) = angle()
        @Carried(into: earlySink) var early = madeEarly
        let (madeLate, lateSink, _) = angle()
        @Carried(into: lateSink) var late = madeLate
        #expect(early.beginRun(now: clock.now) == 0)
        for slot in 0..<8 {
            if slot == 5 { #expect(late.beginRun(now: clock.now) == 5) }
            advance(clock, by: 2) { now in
                early.tick(now: now)
                late.tick(now: now)
            }
            for variant in all {
                early.segmentArrived(variant: variant, slot: slot, duration: 2, programDateTime: epoch.addingTimeInterval(Double(slot) * 2 + 0.004), now: clock.now)
                if slot >= 5 {
                    late.segmentArrived(variant: variant, slot: slot, duration: 2, programDateTime: epoch.addingTimeInterval(Double(slot) * 2 + 0.019), now: clock.now)
                }
            }
        }
        #expect(earlySink.slots("720p") == Array(0..<8))
        #expect(lateSink.slots("720p") == Array(0..<8))
        #expect(earlySink.entries["720p"]!.map(\.programDateTime) == lateSink.entries["720p"]!.map(\.programDateTime))
    }

    /// The cadence stays on the set's grid: a pipeline whose segments come 0.8 s late does not
    /// move the due times of later slots (a stream in no set follows its pipeline instead).
    @Test func cadenceStaysOnTheGrid() {
        let (madeCore, coreSink, clock) = angle()
        @Carried(into: coreSink) var core = madeCore
        _ = core.beginRun(now: clock.now)
        advance(clock, by: 2.8) { core.tick(now: $0) }
        core.segmentArrived(variant: "720p", slot: 0, duration: 2, programDateTime: epoch, now: clock.now)
        #expect(core.cadence.due(1) == 104)
        #expect(core.cadence.isFixed)
    }

    /// `on_late_segment: stale` leaves a stalled stream's slots empty; an angle of a set lists
    /// them as GAP entries at their deadlines.
    @Test func staleLateSlotsAreGapsAtTheirDeadlines() {
        let (madeCore, sink, clock) = angle(late: .stale)
        @Carried(into: sink) var core = madeCore
        _ = core.beginRun(now: clock.now)
        advance(clock, by: 2) { core.tick(now: $0) }
        for variant in all { core.segmentArrived(variant: variant, slot: 0, duration: 2, programDateTime: epoch, now: clock.now) }
        advance(clock, by: 2.9) { core.tick(now: $0) }
        #expect(sink.shape("360p") == "R")
        advance(clock, by: 0.1) { core.tick(now: $0) }
        #expect(sink.shape("360p") == "RG", "a GAP entry has no pictures: no tag")
        #expect(sink.entries["360p"]!.last!.programDateTime == epoch.addingTimeInterval(2))
    }

    /// A restarted server, down for a minute: the slots it missed are GAP entries (nothing was
    /// on air; no stand-in files), listed at once, so entry n is still slot n.
    @Test func restartListsTheMissedSlotsAsGaps() {
        let restored = SlotPublisher.Restored(entries: 10, timeline: StreamTimeline(), lastProgramDateTime: epoch.addingTimeInterval(18), lastDuration: 2)
        let (madeCore, sink, clock) = angle(restored: restored, now: 100 + 80.2)
        @Carried(into: sink) var core = madeCore
        #expect(sink.slots("720p") == Array(10..<40))
        #expect(sink.entries["720p"]!.allSatisfy { $0.content == .gap })
        #expect(sink.entries["720p"]![29].programDateTime == epoch.addingTimeInterval(78))
        #expect(sink.timelines.isEmpty, "no new run: entries stay on slots")
        #expect(core.beginRun(now: clock.now) == 40)
        advance(clock, by: 2) { core.tick(now: $0) }
        core.segmentArrived(variant: "720p", slot: 40, duration: 2, programDateTime: Date(), now: clock.now)
        #expect(sink.entries["720p"]!.last!.programDateTime == epoch.addingTimeInterval(80))
    }

    /// After a longer absence than `SetTimeline.maximumGapSeconds` (5 minutes) the angle skips
    /// ahead (a new run): dates stay the set's.
    @Test func restartAfterAVeryLongAbsenceSkips() {
        let restored = SlotPublisher.Restored(entries: 10, timeline: StreamTimeline(), lastProgramDateTime: epoch.addingTimeInterval(18), lastDuration: 2)
        let (madeCore, sink, _) = angle(restored: restored, now: 100 + 7 * 3600)
        @Carried(into: sink) var core = madeCore
        #expect(sink.entries["720p"] == nil)
        #expect(sink.timelines.last?.runs.last == StreamTimeline.Run(firstEntry: 10, firstSlot: 12_600))
        #expect(core.nextSlot(of: "720p") == 12_600)
    }

    /// `on_input_loss: stale` holds a stream's playlists during an outage (nothing listed, then
    /// a skip); an angle of a set lists each held slot as a GAP entry at its deadline instead,
    /// so it never leaves the set's slots, however long the outage.
    @Test func heldSlotsBecomeGapsNotASkip() {
        let (madeCore, sink, clock) = angle(late: .stale)
        @Carried(into: sink) var core = madeCore
        _ = core.beginRun(now: clock.now)
        advance(clock, by: 2) { core.tick(now: $0) }
        for variant in all { core.segmentArrived(variant: variant, slot: 0, duration: 2, programDateTime: epoch, now: clock.now) }
        core.holding = true
        advance(clock, by: 7.9) { core.tick(now: $0) }
        #expect(sink.shape("720p") == "RGGG", "slot 3's deadline (109 s) passed")
        advance(clock, by: 0.1) { core.tick(now: $0) }
        for variant in all { core.segmentArrived(variant: variant, slot: 4, duration: 2, programDateTime: epoch, now: clock.now) }
        #expect(sink.shape("720p") == "RGGG|R", "pictures after GAP entries start a new coded sequence")
        #expect(sink.slots("360p") == [0, 1, 2, 3, 4])
        #expect(sink.timelines.isEmpty)
    }
}
