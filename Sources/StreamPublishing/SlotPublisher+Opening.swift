import Foundation
import HLSPlaylist
import SidelineCore

/// How a variant's own segment comes into its playlist: its parts first (Low-Latency HLS), whose
/// header lines fix the entry before it exists; the entry it gets; where its tag falls (a seam
/// every variant shares); and what it keeps listing while it waits for one.
/// A slot whose parts are published (Low-Latency HLS): the entry its header lines promise, and
/// the source that made them (`SlotPublisher`'s, per variant).
struct OpenedSlot {
    var entry: PlannedEntry
    var source: EntrySource
}

extension SlotPublisher {
    /// A part of `variant`'s segment for `slot` is ready (`now`: its encoder is alive). Returns
    /// the entry the slot will be, whose header (discontinuity, date ranges, date) the part is
    /// published under, or nil when no part of this slot may be published: the slot is not the
    /// one the variant lists next, or its tag could not be aligned with its siblings yet. The
    /// first part fixes the entry: from then on the slot is the camera's, its parts are what
    /// the segment holds, and no fill takes it (`fill` lists those parts if the encoder dies).
    /// `index`: the part's place in its segment; only the first opens a slot.
    public mutating func partArrived(variant name: String, slot: Int, index: Int, programDateTime: Date?, now: Double,
                                     marks: SegmentMarks = SegmentMarks()) -> PlannedEntry? {
        guard let state = variants[name] else { return nil }
        liveness.progressed(name, at: now)
        if let opened = state.opened { return opened.entry.slot == slot ? opened.entry : nil }
        guard index == 0, slot == state.next, !marks.asGap,
              let entry = ownEntry(name, slot: slot, programDateTime: programDateTime, duration: settings.segmentDuration, marks: marks) else { return nil }
        variants[name]!.opened = OpenedSlot(entry: entry, source: .real(run: run))
        // Its encoder is back: the siblings' copies stop, its own segments come.
        if !shedNow.contains(name) { variants[name]!.failed = false }
        return entry
    }

    /// Lists `part` of `variant` under `entry` (what `partArrived` promised): its sequence
    /// number and the edge to publish it with, or nil when it is out of order.
    public mutating func listPart(_ part: PartLedger.Part, of name: String, under entry: PlannedEntry) -> EdgeLedger.PartListing? {
        guard let entries = variants[name]?.entries else { return nil }
        return edges.partArrived(part, of: name, under: entry, entries: entries)
    }

    /// `variant`'s encoder made pictures at `now` (a frame, a part, a segment): it is late, not
    /// gone, and its slots wait for it. A failed one is back (a failed encoder makes nothing
    /// until it is set up again): its siblings' copies stop, and its own segments come, at a
    /// seam, however late it runs.
    public mutating func encoderProgressed(variant name: String, now: Double) {
        guard variants[name] != nil else { return }
        liveness.progressed(name, at: now)
        if variants[name]!.failed && !shedNow.contains(name) {
            variants[name]!.failed = false
            announceMaster()
        }
    }

    /// The box gives `variant` up (`RungShedding`): it leaves the master and carries its
    /// sibling's segments from the first slot no variant has published (what its parts promised
    /// is listed first), as at start; frames still in its queue change nothing.
    public mutating func shed(_ name: String) {
        guard variants[name] != nil, shedNow.insert(name).inserted else { return }
        variants[name]!.failed = true
        let level = variants.values.map(\.next).max() ?? 0
        variants[name]!.shedAt = level
        while variants[name]!.next < level { fill(name, slot: variants[name]!.next, aligning: true) }
        announceMaster()
    }

    /// The box takes `variant` back: it is in the master again, carrying its sibling's segments
    /// until its encoder makes pictures, and its own from the next seam.
    public mutating func restore(_ name: String) {
        guard shedNow.remove(name) != nil else { return }
        announceMaster()
    }

    /// The entry `variant`'s own segment for `slot` gets: its slot's one date, the fill span it
    /// closes, the input-loss plan's marks, its tag at a seam. Nil when it needs a tag a sibling
    /// already published the slot without.
    mutating func ownEntry(_ name: String, slot: Int, programDateTime: Date?, duration: Double, marks: SegmentMarks) -> PlannedEntry? {
        let source = EntrySource.real(run: run)
        guard let tag = discontinuity(of: name, at: slot, from: source, jump: marks.discontinuity) else { return nil }
        // An angle of a set dates every slot by the set's grid: the same date in every angle.
        let date = slotDates.fix(slot, proposed: settings.setTimeline?.start(of: slot) ?? programDateTime)
        var dateRanges = marks.dateRanges
        if let span = variants[name]!.openSpan, let date {
            dateRanges.append(.fillSpan(span.classLabel, variantFilled: name, since: span.since, until: date))
        }
        return PlannedEntry(slot: slot, content: marks.asGap ? .gap : .real, discontinuity: tag,
                            dateRanges: dateRanges, programDateTime: date, duration: duration)
    }

    /// Whether `variant`'s entry for `slot` from `source` carries EXT-X-DISCONTINUITY: on a seam,
    /// always; where its source changes or its timestamps jump, if that can be a seam (no variant
    /// published the slot). Nil when it cannot: the caller lists what needs no tag, and the
    /// change waits for the seam this declares at the first slot no variant has published.
    mutating func discontinuity(of name: String, at slot: Int, from source: EntrySource, jump: Bool = false) -> Bool? {
        let state = variants[name]!
        let previous = settings.setTimeline?.isUniversal == true ? state.lastMediaSource : state.lastJudged
        let needed = discontinuities.startsDiscontinuity(source, after: previous, jump: jump || (state.skipped && state.entries > 0))
        guard settings.alignsDiscontinuities else { return needed }
        if let tag = seams.tag(slot: slot, needed: needed, frontier: frontier) { return tag }
        seams.declare(frontier)
        return nil
    }

    /// What fills a slot that cannot take a tag: the rung's own stand-in where it joins untagged
    /// (encoded as the rung is, on its slot's timestamps), else a GAP entry. Players die on a GAP
    /// entry in the rung they play (ffmpeg 5.1, playbin, Chromium: Docs/status-codes.md), and
    /// play through the card.
    func untaggedFill(of name: String) -> PlannedEntry.Content {
        discontinuities.isTheGridsOwnFormat(.standIn) ? .standIn(copy: variants[name]!.standInsInRow) : .gap
    }

    /// The first slot no variant has published: neither listed nor promised by its parts.
    var frontier: Int {
        variants.values.map { max($0.next, ($0.opened?.entry.slot ?? -1) + 1) }.max() ?? 0
    }

    /// `variant`'s encoder is back for `slot`, but the slot cannot take its tag: it lists what it
    /// showed before (its sibling's copy, if that sibling has the slot, else a GAP entry).
    mutating func keepSource(of name: String, slot: Int) {
        if !shedNow.contains(name) { variants[name]!.failed = false }
        if case let .sibling(sibling)? = variants[name]!.lastMediaSource, let listed = variants[sibling]?.next, listed > slot {
            fill(name, slot: slot, aligning: true, forcing: .sibling(sibling))
        } else {
            fill(name, slot: slot, aligning: true, forcing: untaggedFill(of: name))
        }
    }
}
