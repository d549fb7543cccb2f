import Foundation

/// The newest dated slot (`SlotPublisher`): slots with no date of their own (stand-ins, copies,
/// GAP entries) are dated on from it, whole segments apart.
struct DateAnchor {
    let slot: Int
    let date: Date

    func date(ofSlot other: Int, every segmentDuration: Double) -> Date {
        date.addingTimeInterval(Double(other - slot) * segmentDuration)
    }
}
