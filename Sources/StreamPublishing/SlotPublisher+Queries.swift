import Foundation
import SidelineCore

/// What the publishing core answers about its variants without changing anything (and the one
/// late-segment question that does): what the master lists, which variants failed, which slot
/// each takes next.
extension SlotPublisher {
    /// The variants the master lists now, best first; nil until every variant it would list
    /// has a playlist that answers 200 (at least one entry).
    public var masterVariants: [String]? {
        let listed = settings.variants.filter { !shedNow.contains($0) && !(variants[$0]!.failed && settings.onVariantFailure == .gap) }
        guard !listed.isEmpty, listed.allSatisfy({ variants[$0]!.entries > 0 }) else { return nil }
        return listed
    }

    public func isFailed(_ variant: String) -> Bool { variants[variant]?.failed ?? false }

    /// Whether `segmentArrived` would list `variant`'s segment for `slot` (its slot is not filled).
    public func accepts(variant: String, slot: Int) -> Bool { variants[variant].map { slot >= $0.next } ?? false }

    /// `variant`'s real segment for `slot` came after the slot was filled (`segmentArrived`
    /// refused it). With `lateSegmentsReplaceFills`, the recording takes it in the fill's place,
    /// once: returns the entry (its index among the variant's entries) it replaces. Nil when
    /// replacing is off, or the slot holds a real segment, was replaced already, or was never
    /// filled by this process. The live playlist is not touched: it only grows.
    public mutating func takeLate(variant: String, slot: Int) -> Int? {
        guard settings.lateSegmentsReplaceFills, variants[variant]?.replaceable.remove(slot) != nil,
              let entry = timeline.entry(ofSlot: slot), timeline.slot(ofEntry: entry) == slot else { return nil }
        return entry
    }

    /// Whether `variant` published parts of `slot`: its entry will be its own segment, whatever
    /// the input-loss plan says of it.
    public func hasPublishedParts(variant: String, slot: Int) -> Bool { variants[variant]?.opened?.entry.slot == slot }

    /// The first slot `variant` has not listed.
    public func nextSlot(of variant: String) -> Int? { variants[variant]?.next }
}
