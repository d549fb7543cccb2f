import Foundation

/// The EXT-X-PROGRAM-DATE-TIME of each slot, fixed by the first variant that publishes it, so
/// that a slot has one date in every variant: a stand-in or a sibling's copy dated by
/// extrapolation, or a rung that finished late, never disagrees with the rungs that listed
/// the slot first (a player that switches rungs places them by date).
///
/// Pure; the core owns one per stream and forgets slots every variant has listed.
public struct SlotDates: Sendable, Equatable {
    private var dates: [Int: Date] = [:]

    public init() {}

    public func date(of slot: Int) -> Date? { dates[slot] }

    /// `slot`'s date: the one fixed already, else `proposed`, which is fixed from now on.
    public mutating func fix(_ slot: Int, proposed: Date?) -> Date? {
        if let fixed = dates[slot] { return fixed }
        if let proposed { dates[slot] = proposed }
        return proposed
    }

    /// Forgets slots before `slot`: every variant has listed past them.
    public mutating func forget(before slot: Int) {
        if dates.keys.contains(where: { $0 < slot }) { dates = dates.filter { $0.key >= slot } }
    }
}
