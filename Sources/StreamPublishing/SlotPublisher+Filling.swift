import Foundation
import HLSPlaylist
import SidelineCore

/// How the publishing core fills what no real segment filled: a policy's stand-in, a sibling's
/// copy or a GAP entry for one slot; GAP entries that keep a set's (or the universal) grid,
/// written together; a skip to a new run of the timeline; and the one place an entry is
/// committed (an effect for the owner to carry out).
extension SlotPublisher {
    /// Lists a stand-in, a sibling's copy or a GAP for `slot` as the policies say; false when
    /// they say to leave it empty. `aligning`: the variant must be brought level with its
    /// siblings whatever `onLateSegment` says (then a GAP entry stands in for "nothing").
    @discardableResult
    mutating func fill(_ name: String, slot: Int, aligning: Bool, forcing forced: PlannedEntry.Content? = nil) -> Bool {
        let state = variants[name]!
        if let opened = state.opened, opened.entry.slot == slot {
            // Its parts are published: the entry is those parts, the segment cut where its
            // encoder stopped (a part once listed is what the segment holds). What follows it
            // follows a hole in its timestamps: a jump, tagged (on a seam).
            var entry = opened.entry
            entry.content = .listedParts
            commit(entry, source: opened.source, span: nil, in: name)
            variants[name]!.skipped = true
            return true
        }
        var content: PlannedEntry.Content? = forced
        if content == nil && state.failed {
            switch fillPolicy(of: name) {
            case .sibling:
                guard let sibling = nearestHealthySibling(of: name) else { break }
                if variants[sibling]!.next > slot {
                    content = .sibling(sibling)
                } else if !aligning, let now = lastTick, !liveness.isStalled(sibling, now: now) {
                    // Its sibling is late, not gone: the copy comes when the sibling lists the slot
                    // (`segmentArrived` brings failed rungs level), never a card meanwhile.
                    return false
                }
            case .gap:
                content = .gap
            case .standin:
                break
            }
        }
        if content == nil, !state.failed, fillPolicy(of: name) == .sibling, let sibling = nearestHealthySibling(of: name),
           variants[sibling]!.next > slot, case .real = variants[sibling]!.lastSource {
            // The camera's frames reach its siblings, which list this slot with their own
            // pictures: this rung alone is silent (taken back after a shed, before its input
            // feeds it again). A card is for a camera that is gone: its sibling's copy, as for a
            // failed rung.
            content = .sibling(sibling)
        }
        if content == nil, settings.onLateSegment == .standin, settings.pairStartsWithGaps, settings.setTimeline?.isUniversal == true,
           let filled = state.filledBeforeOwn, filled < Self.startingGapSlots {
            // A run starting on the universal grid (`startingGapSlots`).
            content = .gap
        }
        if content == nil {
            switch settings.onLateSegment {
            case .standin: content = .standIn(copy: state.standInsInRow)
            case .stale: content = aligning || settings.setTimeline != nil ? .gap : nil
            }
        }
        guard var content else { return false }
        var (source, spanClass) = content.fillSourceAndSpan
        guard source != nil else { return false }
        var tag = discontinuity(of: name, at: slot, from: source!)
        if tag == nil {
            // A change of source a sibling's published slot cannot show aligned: what needs no tag
            // here (the rung's own card, else a GAP entry), the change at the seam declared.
            content = untaggedFill(of: name)
            (source, spanClass) = content.fillSourceAndSpan
            tag = discontinuity(of: name, at: slot, from: source ?? .gap) ?? false
        }
        guard let source, let tag else { return false }
        let date = slotDates.fix(slot, proposed: dateAnchor?.date(ofSlot: slot, every: settings.segmentDuration))
        var dateRanges: [DateRange] = []
        // The span this entry belongs to: the open one if it is of the same kind, else a new one
        // (a GAP belongs to none; without a date to start it, none can open).
        var span = state.openSpan?.classLabel == spanClass ? state.openSpan : nil
        if let open = state.openSpan, open.classLabel != spanClass {
            dateRanges.append(.fillSpan(open.classLabel, variantFilled: name, since: open.since, until: date ?? open.since))
        }
        if span == nil, let spanClass, let date {
            span = PublishedFillSpan(classLabel: spanClass, since: date)
            dateRanges.append(.fillSpan(spanClass, variantFilled: name, since: date))
        }
        let entry = PlannedEntry(slot: slot, content: content, discontinuity: tag,
                                 dateRanges: dateRanges, programDateTime: date, duration: settings.segmentDuration)
        commit(entry, source: source, span: span, in: name)
        return true
    }

    /// An angle of a set: every variant lists GAP entries up to slot `slot`, so entry n stays
    /// slot n of the set; after more than `SetTimeline.maximumGapSlots` of them it skips instead
    /// (never on the universal grid).
    mutating func keepOnSetSlots(upTo slot: Int) {
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
    mutating func listPlainGaps(_ slots: Range<Int>, in name: String) {
        guard !slots.isEmpty else { return }
        let entries = slots.map { slot in
            PlannedEntry(slot: slot, content: .gap, discontinuity: seams.contains(slot), dateRanges: [],
                         programDateTime: slotDates.date(of: slot) ?? dateAnchor?.date(ofSlot: slot, every: settings.segmentDuration),
                         duration: settings.segmentDuration)
        }
        var state = variants[name]!
        let edge = edges.listedGaps(entries, fromEntry: state.entries, in: name)
        effects.append(.listGaps(entries, variant: name, firstSequence: edges.sequence(ofEntry: state.entries, in: name), edge: edge))
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
    mutating func skipEveryVariant(to slot: Int) {
        // A slot whose parts are out is listed first (as those parts), every variant level with it.
        if let opened = variants.values.compactMap({ $0.opened?.entry.slot }).max() {
            for name in settings.variants {
                while variants[name]!.next <= opened { fill(name, slot: variants[name]!.next, aligning: true, forcing: .gap) }
            }
        }
        guard variants.values.contains(where: { $0.next < slot }) else { return }
        timeline.skip(toSlot: slot, atEntry: variants[settings.variants[0]]!.entries)
        for name in settings.variants {
            variants[name]!.next = slot
            variants[name]!.skipped = true
        }
        effects.append(.timeline(timeline))
    }

    /// Lists `entry`; `span` is the fill span open after it (nil after a real segment or a GAP).
    mutating func commit(_ entry: PlannedEntry, source: EntrySource, span: PublishedFillSpan?, in name: String) {
        var state = variants[name]!
        if case .real = source { (state.filledBeforeOwn, state.shedAt) = (nil, nil) } else if let filled = state.filledBeforeOwn { state.filledBeforeOwn = filled + 1 }
        // A skip is a timestamp jump: `discontinuity(of:at:from:)` counted it in the tag.
        state.skipped = false
        if source != .gap { state.lastMediaSource = source }
        if !(source == .standIn && discontinuities.standInJoinsUntagged) { state.lastJudged = source }
        if let opened = state.opened, opened.entry.slot <= entry.slot { state.opened = nil }
        let edge = edges.listed(entry, asEntry: state.entries, in: name)
        effects.append(.list(entry, variant: name, sequence: edges.sequence(ofEntry: state.entries, in: name), edge: edge))
        state.next = entry.slot + 1
        state.entries += 1
        state.lastSource = source
        if case .standIn = entry.content { state.standInsInRow += 1 } else { state.standInsInRow = 0 }
        if settings.lateSegmentsReplaceFills && entry.content != .real { state.replaceable.insert(entry.slot) }
        state.openSpan = span
        variants[name] = state
        // Seams and dates of slots every variant has listed are not needed any more.
        if let listed = variants.values.map(\.next).min() {
            seams.forget(before: listed)
            slotDates.forget(before: listed)
        }
    }

    /// How a failed variant's slots are filled: a shed rung is not encoded and has no stand-in,
    /// so it carries its sibling's segments whatever `on_variant_failure` says.
    /// On a box of a redundant pair, GAP entries: a sibling's copy would be a seam the other box
    /// does not have, tagging every rung here and not there (RFC 8216 §6.2.4 asks the same
    /// Discontinuity Sequence Numbers of both), and the edge asks the other box for a GAP's slot.
    func fillPolicy(of name: String) -> FailedVariantFill {
        if settings.pairStartsWithGaps && settings.setTimeline?.isUniversal == true { return .gap }
        return shedNow.contains(name) ? .sibling : settings.onVariantFailure
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

    mutating func announceMaster() {
        let listing = masterVariants
        guard let listing, listing != announcedMaster else { return }
        announcedMaster = listing
        effects.append(.master(listing: listing))
    }
}
