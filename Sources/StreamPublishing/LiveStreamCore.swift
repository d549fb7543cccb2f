import Foundation
import HLSPlaylist
import SidelineCore

/// One stream's live decisions, whole: the slot publisher (what every slot lists), the
/// input-loss plan (how a slate segment is listed), the end of the stream, and the progress the
/// watchdog reads. Pure, over plain events and the monotonic times the caller passes; the
/// server holds one per stream under a lock, takes its effects after every call
/// (`takeEffects()`) and carries them out after the lock, in order (`StreamPublisher`).
public struct LiveStreamCore: Sendable {
    public private(set) var slots: SlotPublisher
    public private(set) var inputLoss: InputLossPlan
    /// EXT-X-ENDLIST is written (or the stream is being removed): nothing more is listed.
    public private(set) var ended = false
    /// When a slate segment was last withheld on purpose (`on_input_loss: stale`): progress for
    /// the watchdog, though nothing is listed.
    private var lastWithheld: Double?

    /// What became of a finished segment.
    public enum Arrival: Sendable, Equatable {
        /// Listed. `asGap`: as EXT-X-GAP (no file); `recovered`: its variant had failed and
        /// is back; `liveAgain`: the first camera segment since the input could not be opened
        /// (an outage's end is the pipeline's own event, `inputRestored`).
        case listed(asGap: Bool, recovered: Bool, liveAgain: Bool)
        /// A slate segment withheld (`on_input_loss: stale`).
        case withheld
        /// Not listed: its slot was already filled, or the variant is unknown.
        case refused(SlotPublisher.Refusal)
        /// Not listed (its slot was filled), but the recording takes it in place of entry
        /// `entry`'s fill (`SlotPublisher.takeLate`).
        case replaces(entry: Int)
        /// The stream has ended: nothing is listed any more.
        case afterEnd
    }

    public init(slots: SlotPublisher, onInputLoss: InputLossPolicy) {
        self.slots = slots
        self.inputLoss = InputLossPlan(policy: onInputLoss)
    }

    /// What the calls since the last take decided (`SlotPublisher.takeEffects()`).
    public mutating func takeEffects() -> [PublishingEffect] { slots.takeEffects() }

    /// A pipeline run begins at `now`: returns the slot its first segment takes.
    /// After the end nothing is decided (an encoder still pushing, a pipeline restarted as the
    /// stream ends): no entry may follow EXT-X-ENDLIST, so the run gets the next slot and no more.
    public mutating func beginRun(now: Double, standInMatchesRun: Bool = true) -> Int {
        guard !ended else { return slots.frontier }
        inputLoss.beginRun()
        return slots.beginRun(now: now, standInMatchesRun: standInMatchesRun)
    }

    /// Fills the slots whose deadline passed (call every 100 ms or so).
    public mutating func tick(now: Double) {
        guard !ended else { return }
        slots.tick(now: now)
    }

    public mutating func variantFailed(_ variant: String) {
        guard !ended else { return }
        slots.variantFailed(variant)
    }

    /// A part of `variant`'s segment for `slot` is ready: the entry whose header it is published
    /// under, the sequence number and the edge it is listed with, or nil when it is not published
    /// (`SlotPublisher.partArrived`, `listPart`). Only the camera's segments have parts listed,
    /// never the slate's.
    public mutating func partArrived(variant: String, slot: Int, part: PartLedger.Part, programDateTime: Date?, now: Double) -> EdgeLedger.PartListing? {
        guard !ended else { return nil }
        slots.encoderProgressed(variant: variant, now: now)
        guard inputLoss.showsCamera(segment: slot),
              let entry = slots.partArrived(variant: variant, slot: slot, index: part.index, programDateTime: programDateTime, now: now,
                                            marks: inputLoss.cameraMarks(ofSegment: slot)) else { return nil }
        return slots.listPart(part, of: variant, under: entry)
    }

    /// The box gives `variant` up, or takes it back (`SlotPublisher.shed`, `restore`).
    public mutating func shed(_ variant: String) { if !ended { slots.shed(variant) } }
    public mutating func restore(_ variant: String) { if !ended { slots.restore(variant) } }

    /// `variant`'s encoder made pictures at `now`: its late slots wait for it.
    public mutating func encoderProgressed(variant: String, now: Double) {
        slots.encoderProgressed(variant: variant, now: now)
    }

    public mutating func inputLost(since: Date, firstSlateSegment: Int) {
        if inputLoss.inputLost(since: since, firstSlateSegment: firstSlateSegment) { slots.holding = true }
    }

    public mutating func inputRestored(at: Date, firstLiveSegment: Int) {
        inputLoss.inputRestored(at: at, firstLiveSegment: firstLiveSegment)
    }

    public mutating func inputCouldNotBeOpened() {
        inputLoss.inputCouldNotBeOpened()
    }

    /// `variant`'s segment for `slot` is finished. `beforeListing` runs just before the slot
    /// publisher lists it with its file (the caller stages the segment's bytes there), and not
    /// at all when it is refused, withheld, listed as EXT-X-GAP or comes after the end.
    public mutating func segmentArrived(variant: String, slot: Int, duration: Double, programDateTime: Date, now: Double,
                                        beforeListing: () -> Void = {}) -> Arrival {
        guard !ended else { return .afterEnd }
        var marks = SegmentMarks()
        var liveAgain = false
        var endsHold = false
        switch inputLoss.treatment(ofSegment: slot, variant: variant) {
        case let .camera(backFromUnavailable):
            liveAgain = backFromUnavailable
        case let .slate(slate):
            marks = slate
        case .withheld:
            lastWithheld = now
            return .withheld
        case let .firstAfterOutage(closing):
            marks = closing
            endsHold = true
        }
        let wasFailed = slots.isFailed(variant)
        if slots.accepts(variant: variant, slot: slot) && (!marks.asGap || slots.hasPublishedParts(variant: variant, slot: slot)) { beforeListing() }
        if let refusal = slots.segmentArrived(variant: variant, slot: slot, duration: duration, programDateTime: programDateTime, now: now, marks: marks) {
            // Back, but waiting for a seam: the camera is back all the same.
            if case .awaitingSeam = refusal, endsHold { slots.holding = false }
            if !marks.asGap, let entry = slots.takeLate(variant: variant, slot: slot) { return .replaces(entry: entry) }
            return .refused(refusal)
        }
        // The camera is back: late slots are filled again.
        if endsHold { slots.holding = false }
        return .listed(asGap: marks.asGap, recovered: wasFailed, liveAgain: liveAgain)
    }

    /// Ends the stream: returns false when it had ended already.
    public mutating func end() -> Bool {
        defer { ended = true }
        return !ended
    }

    /// When the current run started and its last segment was accepted (or withheld on
    /// purpose), for the watchdog.
    public var progress: (runStartedAt: Double?, lastAccepted: Double?) {
        (slots.runStartedAt, [slots.lastAccepted, lastWithheld].compactMap { $0 }.max())
    }
}
