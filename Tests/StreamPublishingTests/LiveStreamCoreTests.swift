import Foundation
import HLSPlaylist
import SidelineCore
import SidelineTesting
import StreamPublishing
import Testing

/// The input-loss switch (`stream.on_input_loss`) and the rest of a stream's live decisions,
/// in milliseconds: every row `InputLossEndToEndTests` shows through a real server (slate,
/// GAP and stale through a 12 s cut), with time moved by hand.
@Suite struct LiveStreamCoreTests {
    /// Drives a core the way the server does: each variant's segment for slot k arrives at
    /// the end of its span, ticks every 100 ms.
    struct Drive {
        @Carried var core: LiveStreamCore
        let sink = RecordingSink()
        let clock = ManualClock(100)
        var now: Double { clock.now }
        let d = 2.0
        let epoch = Date(timeIntervalSince1970: 1_800_000_000)
        let variants = ["720p", "360p"]
        /// Segments staged for the writer before the core listed them, per variant.
        var staged: [String: [Int]] = [:]

        init(onInputLoss: InputLossPolicy, late: LateSegmentFill = .standin, replaceFills: Bool = false) {
            let settings = SlotPublisher.Settings(variants: variants, segmentDuration: d, grace: 1, onLateSegment: late, lateSegmentsReplaceFills: replaceFills)
            let start = clock.now
            _core = Carried(wrappedValue: LiveStreamCore(slots: SlotPublisher(settings: settings, now: start, wallNow: epoch.addingTimeInterval(start)), onInputLoss: onInputLoss),
                            into: sink)
        }

        var wallNow: Date { epoch.addingTimeInterval(now) }

        mutating func advance(_ seconds: Double) {
            StreamPublishingTests.advance(clock, by: seconds) { core.tick(now: $0) }
        }

        /// Slots `slots` of every variant, each a segment duration after the one before.
        @discardableResult
        mutating func deliver(_ slots: ClosedRange<Int>) -> [LiveStreamCore.Arrival] {
            var arrivals: [LiveStreamCore.Arrival] = []
            for slot in slots {
                advance(d)
                for variant in variants { arrivals.append(arrive(variant, slot)) }
            }
            return arrivals
        }

        mutating func arrive(_ variant: String, _ slot: Int) -> LiveStreamCore.Arrival {
            var stagedNow = false
            let arrival = core.segmentArrived(variant: variant, slot: slot, duration: d, programDateTime: wallNow.addingTimeInterval(-d), now: now) {
                stagedNow = true
            }
            if stagedNow { staged[variant, default: []].append(slot) }
            return arrival
        }

        func entries(_ variant: String) -> [PlannedEntry] { sink.entries[variant] ?? [] }
    }

    /// Camera for slots 0-2, the input lost while slot 3 is encoded (the slate fills 3-8),
    /// the camera back from slot 9.
    func cut(_ policy: InputLossPolicy) -> Drive {
        var drive = Drive(onInputLoss: policy)
        _ = drive.core.beginRun(now: drive.now)
        drive.deliver(0...2)
        drive.core.inputLost(since: drive.wallNow, firstSlateSegment: 3)
        drive.deliver(3...8)
        drive.core.inputRestored(at: drive.wallNow, firstLiveSegment: 9)
        drive.deliver(9...10)
        return drive
    }

    @Test func slateSegmentsAreListedBetweenAnOpeningAndAClosingDateRange() {
        let drive = cut(.slate)
        for variant in drive.variants {
            #expect(drive.sink.shape(variant) == "RRRRRRRRR|RR", "\(variant): the playlist advances through the cut, one entry a slot")
            let entries = drive.entries(variant)
            let opening = entries[3].dateRanges
            #expect(opening.count == 1 && opening[0].classLabel == DateRange.inputLostClass && opening[0].endDate == nil)
            #expect(entries[4...8].allSatisfy { $0.dateRanges.isEmpty }, "only the first slate entry opens the range")
            let closing = entries[9].dateRanges
            #expect(closing.count == 1 && closing[0].id == opening[0].id && closing[0].endDate != nil)
            #expect(entries[9].discontinuity && !entries[3].discontinuity)
            #expect(drive.staged[variant] == Array(0...10), "every segment's bytes are staged for the writer")
        }
    }

    @Test func withGapTheSlateIsListedAsGapEntriesWithTheSameDateRanges() {
        let drive = cut(.gap)
        for variant in drive.variants {
            #expect(drive.sink.shape(variant) == "RRRGGGGGG|RR", "\(variant)")
            let entries = drive.entries(variant)
            #expect(entries[3].dateRanges.first?.classLabel == DateRange.inputLostClass)
            #expect(entries[3...8].allSatisfy { abs($0.duration - 2) < 1e-9 && $0.programDateTime != nil }, "GAP entries keep the slot's duration and date")
            #expect(entries[9].discontinuity && entries[9].dateRanges.first?.endDate != nil)
            #expect(drive.staged[variant] == [0, 1, 2, 9, 10], "nothing is staged for a GAP entry: it has no file")
        }
    }

    @Test func withStaleTheSlateIsWithheldAndNoStandInFillsTheCut() {
        var drive = cut(.stale)
        for variant in drive.variants {
            #expect(drive.sink.shape(variant) == "RRR|RR", "\(variant): nothing listed for 12 s, so the playlist goes stale (404)")
            let entries = drive.entries(variant)
            #expect(entries.map(\.slot) == [0, 1, 2, 9, 10], "the camera's segments keep their own slots")
            let closing = entries[3].dateRanges
            #expect(closing.count == 1 && closing[0].startDate < closing[0].endDate!, "one tag with the start and the end")
        }
        // Withheld slate segments count as progress: the watchdog leaves a cut camera alone.
        var quiet = Drive(onInputLoss: .stale)
        _ = quiet.core.beginRun(now: quiet.now)
        quiet.deliver(0...0)
        quiet.core.inputLost(since: quiet.wallNow, firstSlateSegment: 1)
        let withheld = quiet.deliver(1...3)
        #expect(withheld.allSatisfy { $0 == .withheld })
        #expect(quiet.core.progress.lastAccepted == quiet.now)
        drive.advance(30)
        #expect(drive.sink.shape("720p") == "RRR|RR|SSSSSSSSSSSSSS", "once the camera is back, late slots are filled again")
    }

    @Test func aNewRunForgetsTheOutagesOfTheOldOne() {
        var drive = Drive(onInputLoss: .slate)
        _ = drive.core.beginRun(now: drive.now)
        drive.deliver(0...0)
        drive.core.inputLost(since: drive.wallNow, firstSlateSegment: 1)
        let next = drive.core.beginRun(now: drive.now)
        for variant in drive.variants {
            let arrival = drive.arrive(variant, next)
            #expect(arrival == .listed(asGap: false, recovered: false, liveAgain: false))
        }
        #expect(drive.entries("720p").last?.dateRanges.isEmpty == true, "a restarted pipeline's first segment is the camera's")
    }

    @Test func aCameraThatCouldNotBeOpenedIsLiveAgainWithItsFirstSegment() {
        var drive = Drive(onInputLoss: .slate)
        drive.core.inputCouldNotBeOpened()
        _ = drive.core.beginRun(now: drive.now)
        let arrivals = drive.deliver(0...1)
        #expect(arrivals == [
            .listed(asGap: false, recovered: false, liveAgain: true), .listed(asGap: false, recovered: false, liveAgain: false),
            .listed(asGap: false, recovered: false, liveAgain: false), .listed(asGap: false, recovered: false, liveAgain: false),
        ])
    }

    @Test func aFailedVariantRecoversWithItsNextSegmentInTime() {
        var drive = Drive(onInputLoss: .slate)
        _ = drive.core.beginRun(now: drive.now)
        drive.deliver(0...0)
        drive.core.variantFailed("360p")
        drive.advance(2)
        let first = drive.arrive("720p", 1)
        let late = drive.arrive("360p", 1)
        #expect(first == .listed(asGap: false, recovered: false, liveAgain: false))
        #expect(late == .refused(.slotFilled(slot: 1)), "its sibling's copy took the slot")
        drive.advance(2)
        let back = drive.arrive("360p", 2)
        #expect(back == .listed(asGap: false, recovered: true, liveAgain: false))
        #expect(drive.staged["360p"] == [0, 2], "a refused segment was never staged")
    }

    @Test func afterTheEndNothingIsListedOrFilled() {
        var drive = Drive(onInputLoss: .slate)
        _ = drive.core.beginRun(now: drive.now)
        drive.deliver(0...0)
        let first = drive.core.end()
        let second = drive.core.end()
        #expect(first && !second, "ending twice ends once")
        let arrivals = drive.deliver(1...1)
        #expect(arrivals == [.afterEnd, .afterEnd])
        drive.advance(20)
        #expect(drive.sink.shape("720p") == "R", "no stand-in after EXT-X-ENDLIST")
        // An encoder still pushing, or a pipeline restarted as the stream ends, begins a run:
        // nothing is listed after EXT-X-ENDLIST, not even a slot whose parts were out.
        _ = drive.core.partArrived(variant: "720p", slot: 1, part: .init(index: 0, duration: 0.5, independent: true), programDateTime: drive.wallNow, now: drive.now)
        _ = drive.core.beginRun(now: drive.now)
        #expect(drive.sink.shape("720p") == "R" && drive.sink.shape("360p") == "R", "a run begun after the end lists nothing")
    }

    /// A pushed backlog: a segment that comes after its stand-in is not listed, nothing is
    /// staged for the live playlist, and the core answers which entry the recording replaces.
    @Test func aLateSegmentOfAPushedStreamReplacesItsStandInInTheRecording() {
        var drive = Drive(onInputLoss: .slate, replaceFills: true)
        _ = drive.core.beginRun(now: drive.now)
        drive.deliver(0...0)
        drive.advance(5.5)
        #expect(drive.entries("720p").map(\.content) == [.real, .standIn(copy: 0), .standIn(copy: 1)])
        #expect(drive.arrive("720p", 1) == .replaces(entry: 1))
        #expect(drive.arrive("720p", 1) == .refused(.slotFilled(slot: 1)), "once")
        #expect(drive.staged["720p"] == [0], "a replacement is not staged for the live playlist")
        #expect(drive.entries("720p").count == 3)
    }
}

@Suite struct WriteHealthTests {
    @Test func reportsTheStartAndTheEndOfAFailingDiskOnce() {
        var health = WriteHealth()
        #expect(health.record(failed: false, variant: "720p") == nil)
        #expect(health.record(failed: true, variant: "720p") == .startedFailing)
        #expect(health.record(failed: true, variant: "720p") == nil)
        #expect(health.record(failed: true, variant: "360p") == .startedFailing, "per variant")
        #expect(health.record(failed: false, variant: "720p") == .recovered)
        #expect(health.record(failed: false, variant: "720p") == nil)
        #expect(health.failing == ["360p"])
    }
}

@Suite struct EntryMaterialTests {
    func entry(_ content: PlannedEntry.Content, slot: Int = 7) -> PlannedEntry {
        PlannedEntry(slot: slot, content: content, discontinuity: false, dateRanges: [], programDateTime: nil, duration: 2)
    }

    let sibling = MediaSegment(uri: "000007.ts", duration: 1.98)

    @Test func eachPlannedEntryBecomesItsBytes() {
        let lookUp: (String) -> MediaSegment? = { $0 == "360p" ? sibling : nil }
        #expect(EntryMaterial.of(entry(.real), siblingEntry: lookUp, slotStart: { _ in 0 }) == .staged)
        #expect(EntryMaterial.of(entry(.sibling("360p")), siblingEntry: lookUp, slotStart: { _ in 0 }) == .siblingFile(variant: "360p", uri: "000007.ts", duration: 1.98))
        #expect(EntryMaterial.of(entry(.standIn(copy: 3)), siblingEntry: lookUp, slotStart: { Double($0) * 2 }) == .standIn(offset: 14 * 90_000, copy: 3))
        #expect(EntryMaterial.of(entry(.gap), siblingEntry: lookUp, slotStart: { _ in 0 }) == .gap)
    }

    @Test func aSiblingWithoutAFileForTheSlotGivesAGap() {
        var gap = sibling
        gap.gap = true
        #expect(EntryMaterial.of(entry(.sibling("360p")), siblingEntry: { _ in gap }, slotStart: { _ in 0 }) == .gap)
        #expect(EntryMaterial.of(entry(.sibling("540p")), siblingEntry: { _ in nil }, slotStart: { _ in 0 }) == .gap)
    }
}
