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
/// Not thread-safe: the owner serialises calls (one lock per stream). Calls into the sink
/// happen inside the calling method, in order.
public struct SlotPublisher: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Variant names, best first: "nearest sibling" is by ladder position.
        public var variants: [String]
        public var segmentDuration: Double
        /// How long past its due time a slot waits for its real segment. See Docs/status-codes.md
        /// for how the default was measured.
        public var grace: Double
        public var onVariantFailure: FailedVariantFill
        public var onLateSegment: LateSegmentFill
        /// Whether a real segment that comes after its slot was filled takes the fill's place
        /// in the recording (`takeLate`): a pushed stream's backlog, sent when the uplink
        /// returns. A camera's late segment is dropped, as it always was: its pipeline was
        /// stalled or replaced, and what it finishes late is not worth a second copy.
        public var lateSegmentsReplaceFills: Bool
        /// The set's timeline, for an angle of a set (nil for a stream in no set): slots are the
        /// set's (the cadence never moves off its grid), every entry is dated by its slot's start,
        /// and no slot is left empty (`stale` fills are GAP entries at their deadline; slots a
        /// restart missed are GAP entries up to `SetTimeline.maximumGapSlots`), so every angle
        /// gives slot n the same media sequence number.
        public var setTimeline: SetTimeline?

        public init(variants: [String], segmentDuration: Double, grace: Double = SlotPublisher.defaultGrace,
                    onVariantFailure: FailedVariantFill = .sibling, onLateSegment: LateSegmentFill = .standin, lateSegmentsReplaceFills: Bool = false,
                    setTimeline: SetTimeline? = nil) {
            self.variants = variants
            self.segmentDuration = segmentDuration
            self.grace = grace
            self.onVariantFailure = onVariantFailure
            self.onLateSegment = onLateSegment
            self.lateSegmentsReplaceFills = lateSegmentsReplaceFills
            self.setTimeline = setTimeline
        }
    }

    /// The default grace in seconds (`LateSegmentFill.defaultGrace`).
    public static let defaultGrace = LateSegmentFill.defaultGrace

    /// What an earlier process recorded, to continue from.
    public struct Restored: Sendable, Equatable {
        /// Entries every variant lists (they are aligned at start).
        public var entries: Int
        public var timeline: StreamTimeline
        /// EXT-X-PROGRAM-DATE-TIME and EXTINF of the last entry, if it has a date.
        public var lastProgramDateTime: Date?
        public var lastDuration: Double
        /// Entries (indices) of each variant a late segment may still replace
        /// (`MediaPlaylist.replaceableEntries`); only used with `lateSegmentsReplaceFills`.
        public var replaceable: [String: [Int]] = [:]

        public init(entries: Int, timeline: StreamTimeline, lastProgramDateTime: Date?, lastDuration: Double, replaceable: [String: [Int]] = [:]) {
            self.entries = entries
            self.timeline = timeline
            self.lastProgramDateTime = lastProgramDateTime
            self.lastDuration = lastDuration
            self.replaceable = replaceable
        }

        /// What a recorded playlist's entries say (nil when there are none): the last dated
        /// entry, and the entries after it (GAP entries written without a date) extend its end.
        public init?(recorded entries: [MediaSegment], timeline: StreamTimeline?) {
            guard !entries.isEmpty else { return nil }
            let dated = entries.lastIndex { $0.programDateTime != nil }
            self.init(entries: entries.count, timeline: timeline ?? StreamTimeline(), lastProgramDateTime: dated.flatMap { entries[$0].programDateTime },
                      lastDuration: entries[(dated ?? entries.count - 1)...].reduce(0) { $0 + $1.duration })
        }
    }

    /// Why a real segment was not listed.
    public enum Refusal: Sendable, Equatable {
        /// Its slot was already filled (it came after its deadline).
        case slotFilled(slot: Int)
        case unknownVariant
    }

    /// A run of fills of one kind, marked by an EXT-X-DATERANGE of its CLASS from `since`.
    struct FillSpan {
        var classLabel: String
        var since: Date
    }

    struct VariantState {
        /// The first slot not yet listed.
        var next: Int
        /// Entries listed (this process and earlier ones).
        var entries: Int
        var lastSource: EntrySource?
        var failed = false
        /// Consecutive stand-ins ending at the last entry.
        var standInsInRow = 0
        /// The fill span open after the last entry: its CLASS and when it began.
        var openSpan: FillSpan?
        /// Slots were skipped after the last entry: the next one follows a timestamp jump.
        var skipped = false
        /// Slots this process filled (stand-in, sibling's copy, GAP) that a late real segment
        /// may still replace in the recording; only kept with `lateSegmentsReplaceFills`.
        var replaceable: Set<Int> = []
    }

    public let settings: Settings
    private let sink: any PublishingSink
    var variants: [String: VariantState]
    public private(set) var cadence: SlotCadence
    public private(set) var timeline: StreamTimeline
    /// The latest real segment's slot and capture time: stand-ins are dated from it.
    private var dateAnchor: (slot: Int, date: Date)?
    /// Pipeline runs started so far; each is a new encoder.
    public private(set) var run = 0
    /// When the current run started, and when a real segment was last accepted (monotonic).
    public private(set) var runStartedAt: Double?
    public private(set) var lastAccepted: Double?
    private var announcedMaster: [String]?
    /// While true, late slots are left empty: the stream is meant to go stale (an input
    /// outage with `on_input_loss: stale`). A real segment that comes after empty slots ends
    /// the hold and starts a new run of the timeline after them instead of filling them; one
    /// that takes the next slot (the last before the outage, finished late) does not.
    public var holding = false

    /// `now`, `wallNow`: the monotonic and wall clocks at the same instant.
    public init(settings: Settings, restored: Restored? = nil, now: Double, wallNow: Date, sink: any PublishingSink) {
        precondition(!settings.variants.isEmpty)
        self.settings = settings
        self.sink = sink
        self.cadence = SlotCadence(segmentDuration: settings.segmentDuration, grace: settings.grace)
        self.timeline = restored?.timeline ?? StreamTimeline()
        let entries = restored?.entries ?? 0
        var next = timeline.slot(ofEntry: entries)
        if let grid = settings.setTimeline {
            // An angle of a set: the set's grid, whatever this angle recorded or when it starts.
            cadence.fix(slot: 0, startingAt: now + grid.epoch.timeIntervalSince(wallNow))
            dateAnchor = (0, grid.epoch)
            if grid.isUniversal && entries == 0 {
                // A new recording on the universal grid begins at the slot of now: its entry n
                // is slot n, and its media sequence numbers are slot numbers.
                next = grid.firstSlot(startingAt: wallNow.addingTimeInterval(-settings.grace / 2))
                timeline = StreamTimeline(runs: [.init(firstEntry: 0, firstSlot: next)])
                sink.numberFrom(slot: next)
            }
        } else if let restored, entries > 0, let last = restored.lastProgramDateTime {
            // Continue from the recorded end plus the time that passed: the first slot whose
            // span starts no earlier than now (less half the grace).
            let lastSlot = timeline.slot(ofEntry: entries - 1)
            let end = last.addingTimeInterval(restored.lastDuration)
            let passed = wallNow.timeIntervalSince(end) - settings.grace / 2
            next = lastSlot + 1 + max(0, Int((passed / settings.segmentDuration).rounded(.up)))
            dateAnchor = (lastSlot, last)
            cadence.anchor(slot: next, startingAt: now + end.addingTimeInterval(Double(next - lastSlot - 1) * settings.segmentDuration).timeIntervalSince(wallNow))
            if next != timeline.slot(ofEntry: entries) { timeline.skip(toSlot: next, atEntry: entries) }
        }
        let source: EntrySource? = entries > 0 ? .restored : nil
        variants = Dictionary(uniqueKeysWithValues: settings.variants.map { ($0, VariantState(next: next, entries: entries, lastSource: source)) })
        if settings.lateSegmentsReplaceFills, let restored {
            // What an earlier process filled, a late segment may still replace after a restart.
            let timeline = self.timeline
            for (name, indices) in restored.replaceable where variants[name] != nil {
                variants[name]!.replaceable = Set(indices.map { timeline.slot(ofEntry: $0) })
            }
        }
        if restored.map({ timeline != $0.timeline }) ?? (timeline != StreamTimeline()) { sink.timelineChanged(timeline) }
        if let grid = settings.setTimeline {
            // The slots that passed before this process (or this angle) was there: nothing was on
            // air, so they are GAP entries, listed at once (never stand-ins the ticker would make).
            keepOnSetSlots(upTo: grid.firstSlot(startingAt: wallNow.addingTimeInterval(-settings.grace / 2)))
        }
        announceMaster()
    }

    // MARK: Events

    /// A pipeline is about to start at `now`: returns the slot its first segment must take.
    /// Variants a step behind their siblings are brought level first; slots before the
    /// returned one that stay empty are filled as their deadlines pass, or skipped (a new
    /// run of the timeline) when nothing fills late slots.
    public mutating func beginRun(now: Double) -> Int {
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
        return first
    }

    /// A real segment for `slot` is ready. Lists it (and whatever it makes possible: a failed
    /// sibling's copy of it), unless its slot is already filled. `marks` come from the
    /// input-loss plan: a slate segment listed as EXT-X-GAP, date ranges, a discontinuity.
    @discardableResult
    public mutating func segmentArrived(variant name: String, slot: Int, duration: Double, programDateTime: Date, now: Double,
                                        marks: SegmentMarks = SegmentMarks()) -> Refusal? {
        guard let level = variants[name]?.next else { return .unknownVariant }
        guard slot >= level else { return .slotFilled(slot: slot) }
        // An angle of a set dates every slot by the set's grid: the same date in every angle.
        let programDateTime = settings.setTimeline?.start(of: slot) ?? programDateTime
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
        variants[name]!.failed = false
        let state = variants[name]!
        let source = EntrySource.real(run: run)
        var dateRanges = marks.dateRanges
        if let span = state.openSpan {
            dateRanges.append(.fillSpan(span.classLabel, variantFilled: name, since: span.since, until: programDateTime))
        }
        let entry = PlannedEntry(slot: slot, content: marks.asGap ? .gap : .real,
                                 discontinuity: marks.discontinuity || (state.lastSource.map { $0 != source } ?? false),
                                 dateRanges: dateRanges, programDateTime: programDateTime, duration: duration)
        commit(entry, source: source, span: nil, in: name)
        cadence.arrived(slot: slot, at: now)
        if dateAnchor.map({ slot >= $0.slot }) ?? true { dateAnchor = (slot, programDateTime) }
        lastAccepted = now
        // Failed variants that take this one's segments catch up to it.
        for failed in settings.variants where variants[failed]!.failed && variants[failed]!.next <= slot {
            guard settings.onVariantFailure != .standin else { continue }
            if settings.onVariantFailure == .sibling && nearestHealthySibling(of: failed) != name { continue }
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
        let level = variants.values.map(\.next).max() ?? 0
        if settings.onVariantFailure != .standin {
            while variants[name]!.next < level { fill(name, slot: variants[name]!.next, aligning: true) }
        }
        announceMaster()
    }

    /// Fills every slot whose deadline has passed by `now`. Call often (every 100 ms or so).
    /// An angle of a set leaves no slot empty: what would stay empty (`on_late_segment: stale`,
    /// or held by `on_input_loss: stale`) is a GAP entry at its deadline, so the angle keeps its
    /// place on the set's slots through an outage of any length, one entry per slot as they pass.
    public mutating func tick(now: Double) {
        guard !holding || settings.setTimeline != nil else { return }
        // Healthy variants first, so a failed one's sibling has listed the slot if it can.
        let order = settings.variants.filter { !variants[$0]!.failed } + settings.variants.filter { variants[$0]!.failed }
        var progress = true
        while progress {
            progress = false
            for name in order {
                let slot = variants[name]!.next
                guard let deadline = cadence.deadline(slot), now >= deadline else { continue }
                if fill(name, slot: slot, aligning: false, forcing: holding ? .gap : nil) { progress = true }
            }
        }
        announceMaster()
    }

    // MARK: Filling

    /// Lists a stand-in, a sibling's copy or a GAP for `slot` as the policies say; false when
    /// they say to leave it empty. `aligning`: the variant must be brought level with its
    /// siblings whatever `onLateSegment` says (then a GAP entry stands in for "nothing").
    @discardableResult
    private mutating func fill(_ name: String, slot: Int, aligning: Bool, forcing forced: PlannedEntry.Content? = nil) -> Bool {
        let state = variants[name]!
        var content: PlannedEntry.Content? = forced
        if content == nil && state.failed {
            switch settings.onVariantFailure {
            case .sibling:
                if let sibling = nearestHealthySibling(of: name), variants[sibling]!.next > slot { content = .sibling(sibling) }
            case .gap:
                content = .gap
            case .standin:
                break
            }
        }
        if content == nil {
            switch settings.onLateSegment {
            case .standin: content = .standIn(copy: state.standInsInRow)
            case .stale: content = aligning || settings.setTimeline != nil ? .gap : nil
            }
        }
        guard let content else { return false }
        let source: EntrySource
        let spanClass: String?
        switch content {
        case .real: return false
        case let .sibling(sibling): (source, spanClass) = (.sibling(sibling), DateRange.siblingFillClass)
        case .standIn: (source, spanClass) = (.standIn, DateRange.standInClass)
        case .gap: (source, spanClass) = (.gap, nil)
        }
        let date = dateAnchor.map { $0.date.addingTimeInterval(Double(slot - $0.slot) * settings.segmentDuration) }
        var dateRanges: [DateRange] = []
        // The span this entry belongs to: the open one if it is of the same kind, else a new one
        // (a GAP belongs to none; without a date to start it, none can open).
        var span = state.openSpan?.classLabel == spanClass ? state.openSpan : nil
        if let open = state.openSpan, open.classLabel != spanClass {
            dateRanges.append(.fillSpan(open.classLabel, variantFilled: name, since: open.since, until: date ?? open.since))
        }
        if span == nil, let spanClass, let date {
            span = FillSpan(classLabel: spanClass, since: date)
            dateRanges.append(.fillSpan(spanClass, variantFilled: name, since: date))
        }
        let entry = PlannedEntry(slot: slot, content: content, discontinuity: state.lastSource.map { $0 != source } ?? false,
                                 dateRanges: dateRanges, programDateTime: date, duration: settings.segmentDuration)
        commit(entry, source: source, span: span, in: name)
        return true
    }

    /// An angle of a set: every variant lists GAP entries up to slot `slot`, so entry n stays
    /// slot n of the set; after more than `SetTimeline.maximumGapSlots` of them it skips instead
    /// (never on the universal grid).
    private mutating func keepOnSetSlots(upTo slot: Int) {
        guard let grid = settings.setTimeline, let level = variants.values.map(\.next).min(), slot > level else { return }
        let skips = slot - level > grid.maximumGapSlots
        // Variants a step behind their siblings are brought level first, so a skip starts every
        // variant's new run at the same entry.
        let upTo = skips ? (variants.values.map(\.next).max() ?? level) : slot
        for name in settings.variants {
            // The first GAP as any fill (it closes a fill span, marks the seam); the rest are
            // alike but for their slots, written together.
            if variants[name]!.next < upTo { fill(name, slot: variants[name]!.next, aligning: true, forcing: .gap) }
            listPlainGaps(variants[name]!.next..<upTo, in: name)
        }
        if skips { skipEveryVariant(to: slot) }
    }

    /// The most slots a real segment's arrival fills by policy (stand-ins, a sibling's copies)
    /// on the universal grid: five minutes' worth; a longer jump is GAP entries in one go.
    static func longestFilledJump(_ grid: SetTimeline) -> Int { Int(SetTimeline.maximumGapSeconds / grid.segmentDuration) }

    /// GAP entries for `slots` of `name`, after a GAP entry: no seam, no span, dated on the
    /// grid; listed with one `listGaps`.
    private mutating func listPlainGaps(_ slots: Range<Int>, in name: String) {
        guard !slots.isEmpty else { return }
        let entries = slots.map { slot in
            PlannedEntry(slot: slot, content: .gap, discontinuity: false, dateRanges: [],
                         programDateTime: dateAnchor.map { $0.date.addingTimeInterval(Double(slot - $0.slot) * settings.segmentDuration) },
                         duration: settings.segmentDuration)
        }
        sink.listGaps(entries, in: name)
        var state = variants[name]!
        state.next = slots.upperBound
        state.entries += entries.count
        state.lastSource = .gap
        state.standInsInRow = 0
        state.openSpan = nil
        if settings.lateSegmentsReplaceFills { state.replaceable.formUnion(slots) }
        variants[name] = state
    }

    /// Every variant's next entry takes slot `slot`: the slots before it stay empty, a new run
    /// of the timeline (persisted) begins, and the next entries follow a timestamp jump.
    private mutating func skipEveryVariant(to slot: Int) {
        timeline.skip(toSlot: slot, atEntry: variants[settings.variants[0]]!.entries)
        for name in settings.variants {
            variants[name]!.next = slot
            variants[name]!.skipped = true
        }
        sink.timelineChanged(timeline)
    }

    /// Lists `entry`; `span` is the fill span open after it (nil after a real segment or a GAP).
    private mutating func commit(_ entry: PlannedEntry, source: EntrySource, span: FillSpan?, in name: String) {
        var entry = entry
        var state = variants[name]!
        if state.skipped && state.entries > 0 { entry.discontinuity = true }
        state.skipped = false
        sink.list(entry, in: name)
        state.next = entry.slot + 1
        state.entries += 1
        state.lastSource = source
        if case .standIn = entry.content { state.standInsInRow += 1 } else { state.standInsInRow = 0 }
        if settings.lateSegmentsReplaceFills && entry.content != .real { state.replaceable.insert(entry.slot) }
        state.openSpan = span
        variants[name] = state
    }

    /// The healthy variant closest in the ladder; of two equally close, the lower one (cheaper
    /// for a player that picked the failed rung for its bandwidth).
    func nearestHealthySibling(of name: String) -> String? {
        guard let index = settings.variants.firstIndex(of: name) else { return nil }
        for distance in 1..<max(settings.variants.count, 1) {
            for candidate in [index + distance, index - distance] where settings.variants.indices.contains(candidate) {
                let sibling = settings.variants[candidate]
                if !variants[sibling]!.failed { return sibling }
            }
        }
        return nil
    }

    private mutating func announceMaster() {
        let listing = masterVariants
        guard let listing, listing != announcedMaster else { return }
        announcedMaster = listing
        sink.masterChanged(listing: listing)
    }
}
