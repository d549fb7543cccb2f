import Foundation
import SidelineCore

/// A run of fills of one kind (`SlotPublisher`), marked by an EXT-X-DATERANGE of its CLASS from
/// `since`.
struct PublishedFillSpan {
    var classLabel: String
    var since: Date
}

/// What the publishing core (`SlotPublisher`) keeps of each variant: where its playlist stands,
/// what it last listed, and what it waits for.
struct PublishedVariant {
    /// The first slot not yet listed.
    var next: Int
    /// Entries listed (this process and earlier ones).
    var entries: Int
    var lastSource: EntrySource?
    var failed = false
    /// Consecutive stand-ins ending at the last entry.
    var standInsInRow = 0
    /// The fill span open after the last entry: its CLASS and when it began.
    var openSpan: PublishedFillSpan?
    /// Slots were skipped after the last entry: the next one follows a timestamp jump.
    var skipped = false
    /// Slots this process filled (stand-in, sibling's copy, GAP) that a late real segment
    /// may still replace in the recording; only kept with `lateSegmentsReplaceFills`.
    var replaceable: Set<Int> = []
    /// Slots filled in this run of the encoder before its first segment (`startingFill`).
    var filledBeforeOwn: Int? = 0
    /// The slot it was making when it was shed, until its own segments are listed again.
    var shedAt: Int?
    /// The newest entry with pictures (not a GAP): what a change of source is judged against
    /// on the universal grid.
    var lastMediaSource: EntrySource?
    /// Off the universal grid, the newest entry a change of source is judged against: any
    /// but a stand-in in the rung's own format, which joins untagged and is passed over.
    var lastJudged: EntrySource?
    /// The slot whose parts this variant has published, and the entry they promise: its
    /// header lines are out, so the slot's entry is that one, whatever comes.
    var opened: OpenedSlot?
}
