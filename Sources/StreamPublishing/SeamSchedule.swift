/// Where EXT-X-DISCONTINUITY falls in a stream: on the same slots in every variant, so that
/// every media sequence number has the same Discontinuity Sequence Number in every variant
/// (RFC 8216bis §6.2.2 asks it of the Variant Streams of a master, and a player that switches
/// rungs maps timestamps by it).
///
/// A variant whose source changes (a sibling's picture, a foreign stand-in, its encoder back, a
/// timestamp jump) needs a tag at its entry. The tag can go there only while no variant has
/// published that slot (listed its entry or its parts' header): a published line never changes,
/// so a sibling that published the slot without a tag cannot take one. Such a slot is a seam
/// from then on, and every variant's entry for it carries the tag, needed or not (a tag between
/// continuous segments costs a player a timestamp re-sync, not a picture).
///
/// Pure; the core owns one per stream.
public struct SeamSchedule: Sendable, Equatable {
    /// Slots that carry EXT-X-DISCONTINUITY in every variant, from the oldest any variant may
    /// still list on.
    public private(set) var seams: Set<Int> = []

    public init() {}

    /// Whether the entry for `slot` carries EXT-X-DISCONTINUITY: true on a seam; when `needed`,
    /// a new seam if `slot` is at or past `frontier` (the first slot no variant has published).
    /// Nil when the tag is needed and cannot be aligned (a sibling published `slot` untagged):
    /// the caller lists what needs no tag there and moves the change to `frontier`.
    public mutating func tag(slot: Int, needed: Bool, frontier: Int) -> Bool? {
        if seams.contains(slot) { return true }
        guard needed else { return false }
        guard slot >= frontier else { return nil }
        seams.insert(slot)
        return true
    }

    /// Makes `slot` a seam ahead of time: a variant that could not change source where it wanted
    /// changes it here, and every variant tags it.
    public mutating func declare(_ slot: Int) {
        seams.insert(slot)
    }

    public func contains(_ slot: Int) -> Bool { seams.contains(slot) }

    /// Forgets seams before `slot`: every variant has listed past them.
    public mutating func forget(before slot: Int) {
        if seams.contains(where: { $0 < slot }) { seams = seams.filter { $0 >= slot } }
    }
}
