import Foundation
import HLSPlaylist
import SidelineCore

/// The live decisions of one stream, over plain events and an injected clock: which entry
/// every variant's playlist gets for every slot of the stream's timeline.
///
/// Slot k of every variant covers media time [k x D, (k + 1) x D). A real segment takes its
/// slot when it arrives in time; a slot still empty at its deadline (`SlotCadence`) is filled
/// at once, so the playlist keeps its cadence whatever the pipeline does:
/// - a failed variant's slot with its nearest healthy sibling's segment, a stand-in card, or a
///   GAP entry (`FailedVariantFill`);
/// - a late slot (stalled pipeline, watchdog restart, restarted process) with the variant's
///   stand-in card, or nothing (`LateSegmentFill.stale`).
/// A real segment that arrives for a slot already filled is dropped, never listed over it.
/// EXT-X-DISCONTINUITY marks every change of source; each fill span opens and closes with an
/// EXT-X-DATERANGE of Sideline's own CLASS.
///
/// Not thread-safe: the owner serialises calls (one lock per stream). The core writes nothing:
/// what it decides is queued as `PublishingEffect`s, in order, which the owner takes after
/// each call (`takeEffects()`) and carries out outside its lock, in the same order.
public struct SlotPublisher: Sendable {
    /// On a box of a redundant pair (`Settings.pairStartsWithGaps`), the slots a run of the
    /// encoder leaves empty while it starts (the input opening, the first GOP) are GAP entries,
    /// not stand-ins, up to this many: the other box has those slots' pictures, which an edge
    /// asks it for on the GAP's 404, where a stand-in would show this box's card. Past them, the
    /// policy's stand-ins (no discontinuity either: `DiscontinuityRule`).
    static let startingGapSlots = 3

    public let settings: Settings
    /// Where entries carry EXT-X-DISCONTINUITY (with each run's stand-in format).
    var discontinuities: DiscontinuityRule
    /// What the calls since the last `takeEffects()` decided, in order.
    var effects: [PublishingEffect] = []
    /// Each entry's sequence number and the parts listed at each variant's edge.
    public internal(set) var edges: EdgeLedger
    var variants: [String: PublishedVariant]
    public private(set) var cadence: SlotCadence
    public internal(set) var timeline: StreamTimeline
    /// The latest real segment's slot and capture time: stand-ins are dated from it.
    var dateAnchor: DateAnchor?
    /// Pipeline runs started so far; each is a new encoder.
    public private(set) var run = 0
    /// When the current run started, and when a real segment was last accepted (monotonic).
    public private(set) var runStartedAt: Double?
    public private(set) var lastAccepted: Double?
    var announcedMaster: [String]?
    /// Where EXT-X-DISCONTINUITY falls: the same slots in every variant.
    var seams = SeamSchedule()
    /// Whether each variant's encoder still makes pictures: only a stalled one's slots are filled.
    var liveness: EncoderLiveness
    /// Each slot's one EXT-X-PROGRAM-DATE-TIME, the same in every variant.
    var slotDates = SlotDates()
    /// The latest tick's time: whether a failed rung's sibling is late or gone is judged by it.
    var lastTick: Double?
    /// The slot the current run's first segment takes (`beginRun`): its encoders make nothing
    /// before it, however alive they are, so a slot before it is filled as it ends.
    var runFirstSlot = Int.min
    /// Rungs shed now (`Settings.shed` at start, `shed(_:)` and `restore(_:)` after).
    public internal(set) var shedNow: Set<String>
    /// While true, late slots are left empty: the stream is meant to go stale (an input
    /// outage with `on_input_loss: stale`). A real segment that comes after empty slots ends
    /// the hold and starts a new run of the timeline after them instead of filling them; one
    /// that takes the next slot (the last before the outage, finished late) does not.
    public var holding = false

    /// `now`, `wallNow`: the monotonic and wall clocks at the same instant.
    public init(settings: Settings, restored: Restored? = nil, now: Double, wallNow: Date) {
        precondition(!settings.variants.isEmpty)
        self.settings = settings
        self.liveness = EncoderLiveness(stalledAfter: settings.stalledAfter)
        self.shedNow = settings.shed
        discontinuities = DiscontinuityRule(settings: settings)
        edges = EdgeLedger(restored: restored, parts: settings.parts, kept: settings.partEntriesKept)
        let start = TimelineStart(settings: settings, restored: restored, now: now, wallNow: wallNow)
        (cadence, timeline, dateAnchor) = (start.cadence, start.timeline, start.dateAnchor)
        if let slot = start.numberedFrom {
            edges.numberFrom(slot: slot)
            effects.append(.numberFrom(slot: slot))
        }
        let (entries, next) = (restored?.entries ?? 0, start.next)
        let source: EntrySource? = entries > 0 ? .restored : nil
        variants = Dictionary(uniqueKeysWithValues: settings.variants.map {
            ($0, PublishedVariant(next: next, entries: entries, lastSource: source, failed: settings.shed.contains($0), skipped: start.skipped, lastMediaSource: source,
                              lastJudged: source))
        })
        if settings.lateSegmentsReplaceFills, let restored {
            // What an earlier process filled, a late segment may still replace after a restart.
            let timeline = self.timeline
            for (name, indices) in restored.replaceable where variants[name] != nil {
                variants[name]!.replaceable = Set(indices.map { timeline.slot(ofEntry: $0) })
            }
        }
        if restored.map({ timeline != $0.timeline }) ?? (timeline != StreamTimeline()) { effects.append(.timeline(timeline)) }
        if let grid = settings.setTimeline {
            // The slots that passed before this process (or this angle) was there: nothing was on
            // air, so they are GAP entries, listed at once (never stand-ins the ticker would make).
            keepOnSetSlots(upTo: grid.firstSlot(startingAt: wallNow.addingTimeInterval(-settings.grace / 2)))
        }
        announceMaster()
    }

    /// What the calls since the last take decided, in the order to carry it out; the queue is
    /// left empty. Take after every call (the init's effects included).
    public mutating func takeEffects() -> [PublishingEffect] {
        let taken = effects
        effects = []
        return taken
    }

    // MARK: Events

    /// A pipeline is about to start at `now`: returns the slot its first segment must take.
    /// Variants a step behind their siblings are brought level first; slots before the
    /// returned one that stay empty are filled as their deadlines pass, or skipped (a new
    /// run of the timeline) when nothing fills late slots.
    /// `standInMatchesRun`: whether this run's stand-ins are its own format (its audio is the
    /// stand-in's: a camera that lost or gained its sound is another number of tracks, tagged).
    public mutating func beginRun(now: Double, standInMatchesRun: Bool = true) -> Int {
        discontinuities.standInMatchesRun = standInMatchesRun
        // The old encoders are gone: what they published parts of is listed as those parts.
        for name in settings.variants where variants[name]!.opened != nil { fill(name, slot: variants[name]!.next, aligning: true) }
        liveness.forgetAll()
        let level = variants.values.map(\.next).max() ?? 0
        for name in settings.variants {
            while variants[name]!.next < level { fill(name, slot: variants[name]!.next, aligning: true) }
        }
        let first = cadence.firstSlot(startingAfter: now, notBefore: level)
        if first > level && settings.onLateSegment == .stale {
            if settings.setTimeline != nil { keepOnSetSlots(upTo: first) } else { skipEveryVariant(to: first) }
        }
        run += 1
        runStartedAt = now
        runFirstSlot = first
        for name in settings.variants { variants[name]!.filledBeforeOwn = 0 }
        return first
    }

    /// A real segment for `slot` is ready. Lists it (and whatever it makes possible: a failed
    /// sibling's copy of it), unless its slot is already filled. `marks` come from the
    /// input-loss plan: a slate segment listed as EXT-X-GAP, date ranges, a discontinuity.
    @discardableResult
    public mutating func segmentArrived(variant name: String, slot: Int, duration: Double, programDateTime: Date, now: Double,
                                        marks: SegmentMarks = SegmentMarks()) -> Refusal? {
        guard let level = variants[name]?.next else { return .unknownVariant }
        liveness.progressed(name, at: now)
        guard slot >= level else { return variants[name]!.shedAt.map { slot <= $0 } == true ? .unfinishedWhenShed(slot: slot) : .slotFilled(slot: slot) }
        if slot > level && (holding || settings.onLateSegment == .stale) && variants.values.allSatisfy({ $0.next == level }) {
            // Nothing filled the empty slots, on purpose: skip them (an angle of a set lists
            // them as GAP entries instead, so its entries stay on the set's slots).
            if settings.setTimeline != nil { keepOnSetSlots(upTo: slot) } else { skipEveryVariant(to: slot) }
            holding = false
        }
        if let grid = settings.setTimeline, grid.isUniversal, slot - level > Self.longestFilledJump(grid) {
            // A segment far ahead of the listed slots on the universal grid (the clock stepped
            // forward under a running pipeline): GAP entries written together, not a stand-in
            // file each, one by one, under the core's lock.
            keepOnSetSlots(upTo: slot)
        }
        while variants[name]!.next < slot { fill(name, slot: variants[name]!.next, aligning: true) }
        // A shed rung's last frames, still queued when it was shed, do not bring it back.
        if !shedNow.contains(name) { variants[name]!.failed = false }
        let source = EntrySource.real(run: run)
        let listedDate: Date?
        if let opened = variants[name]!.opened, opened.entry.slot == slot {
            // Its parts are out with their header: the entry is the one they promised.
            var entry = opened.entry
            entry.duration = duration
            listedDate = entry.programDateTime
            commit(entry, source: source, span: nil, in: name)
        } else {
            guard let entry = ownEntry(name, slot: slot, programDateTime: programDateTime, duration: duration, marks: marks) else {
                // Its encoder is back where a sibling published the slot without a tag: it keeps
                // what it showed for this slot and comes back at a seam every variant tags.
                keepSource(of: name, slot: slot)
                cadence.arrived(slot: slot, at: now)
                lastAccepted = now
                announceMaster()
                return .awaitingSeam(slot: slot)
            }
            listedDate = entry.programDateTime
            commit(entry, source: source, span: nil, in: name)
        }
        cadence.arrived(slot: slot, at: now)
        if let listedDate, dateAnchor.map({ slot >= $0.slot }) ?? true { dateAnchor = DateAnchor(slot: slot, date: listedDate) }
        lastAccepted = now
        // Failed variants that take this one's segments catch up to it.
        for failed in settings.variants where variants[failed]!.failed && variants[failed]!.next <= slot {
            guard fillPolicy(of: failed) != .standin else { continue }
            if fillPolicy(of: failed) == .sibling && nearestHealthySibling(of: failed) != name { continue }
            while variants[failed]!.next <= slot { fill(failed, slot: variants[failed]!.next, aligning: true) }
        }
        announceMaster()
        return nil
    }

    /// `name`'s encoder failed: it is filled from now on (and brought level with its
    /// siblings at once) until a real segment of it arrives in time.
    public mutating func variantFailed(_ name: String) {
        guard variants[name] != nil, !variants[name]!.failed else { return }
        variants[name]!.failed = true
        if let opened = variants[name]!.opened, opened.entry.slot == variants[name]!.next {
            // It stopped inside a slot whose parts are out: they are its entry now, and the hole
            // after them is tagged on a seam declared while its siblings are on that slot.
            fill(name, slot: opened.entry.slot, aligning: true)
            if settings.alignsDiscontinuities { seams.declare(frontier) }
        }
        let level = variants.values.map(\.next).max() ?? 0
        if fillPolicy(of: name) != .standin {
            while variants[name]!.next < level { fill(name, slot: variants[name]!.next, aligning: true) }
        }
        announceMaster()
    }

    /// Fills every slot whose deadline has passed by `now`. Call often (every 100 ms or so).
    /// An angle of a set leaves no slot empty: what would stay empty (`on_late_segment: stale`,
    /// or held by `on_input_loss: stale`) is a GAP entry at its deadline, so the angle keeps its
    /// place on the set's slots through an outage of any length, one entry per slot as they pass.
    public mutating func tick(now: Double) {
        lastTick = now
        guard !holding || settings.setTimeline != nil else { return }
        // Healthy variants first, so a failed one's sibling has listed the slot if it can.
        let order = settings.variants.filter { !variants[$0]!.failed } + settings.variants.filter { variants[$0]!.failed }
        var progress = true
        while progress {
            progress = false
            for name in order {
                let slot = variants[name]!.next
                guard let fillTime = cadence.fillTime(of: slot, runFirstSlot: run == 0 ? nil : runFirstSlot), now >= fillTime else { continue }
                // An encoder whose frames come is late, not gone: its segment takes the slot when
                // it comes. Only a stalled or failed one's slot is filled (or, while the stream is
                // held stale, every slot, as GAP entries).
                guard holding || variants[name]!.failed || slot < runFirstSlot || liveness.isStalled(name, now: now) else { continue }
                if fill(name, slot: slot, aligning: false, forcing: holding ? .gap : nil) { progress = true }
            }
        }
        announceMaster()
    }

}
