/// Why a real segment was not listed.
public enum SlotRefusal: Sendable, Equatable {
    /// Its slot was already filled (it came after its deadline).
    case slotFilled(slot: Int)
    /// Its variant was showing a sibling's picture, and a sibling published this slot without
    /// the tag coming back needs: the slot keeps the sibling's picture (or a GAP), and the
    /// variant's own segments come back at the seam every variant tags next.
    case awaitingSeam(slot: Int)
    /// The segment its rung was making when the box shed it, closed only when the rung was
    /// taken back (the input left it out mid-segment): its slot carries a sibling's copy. Not
    /// late, and not counted as a late segment dropped.
    case unfinishedWhenShed(slot: Int)
    case unknownVariant
}
