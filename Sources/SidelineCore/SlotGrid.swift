import Foundation

/// A slot grid on the wall clock: slot k covers [epoch + k x D, epoch + (k + 1) x D). The one
/// place its arithmetic lives: an angle set's timeline (`SetTimeline`), a pusher's
/// (`PushTimeline`) and the ingest placing a pushed angle's session on its set's slots
/// (`IngestLedger`) are grids, and take every slot and start from here. Pure.
///
/// Where a grid begins is one rule too (`epoch(atOrAfter:)`): the first multiple of D since
/// 1970 at or after now, in whole milliseconds (what EXT-X-PROGRAM-DATE-TIME can say). Any two
/// clocks that agree cut on the same grid without telling each other, so a pushed angle's
/// segments fall on its set's slots.
public protocol SlotGrid {
    var epoch: Date { get }
    /// D, in seconds (above 0).
    var segmentDuration: Double { get }
    init(epoch: Date, segmentDuration: Double)
}

extension SlotGrid {
    /// The first multiple of `segmentDuration` since 1970 at or after `now`, in whole milliseconds.
    public static func epoch(atOrAfter now: Date, segmentDuration: Double) -> Date {
        let period = max(1, (segmentDuration * 1000).rounded())
        let milliseconds = (now.timeIntervalSince1970 * 1000).rounded(.up)
        return Date(timeIntervalSince1970: (milliseconds / period).rounded(.up) * period / 1000)
    }

    /// A new grid, beginning at `epoch(atOrAfter: now)`: at or after, not before, so slot 0 is
    /// the first whole slot, and nothing begins with a slot that started before anything ran.
    public static func starting(at now: Date, segmentDuration: Double) -> Self {
        Self(epoch: epoch(atOrAfter: now, segmentDuration: segmentDuration), segmentDuration: segmentDuration)
    }

    /// The slot whose span holds `instant` (negative before the epoch).
    public func slot(of instant: Date) -> Int {
        Self.whole((instant.timeIntervalSince(epoch) / segmentDuration).rounded(.down))
    }

    /// When slot `slot` starts.
    public func start(of slot: Int) -> Date { epoch.addingTimeInterval(Double(slot) * segmentDuration) }

    /// The first slot that starts no earlier than `instant` (never before slot 0).
    public func firstSlot(startingAt instant: Date) -> Int {
        max(0, Self.whole((instant.timeIntervalSince(epoch) / segmentDuration).rounded(.up)))
    }

    /// The slot whose start `date` is nearest, and how far from it `date` is (seconds, either
    /// way); nil for a date 2^40 slots or more from the epoch (a clock gone wrong: on the
    /// universal grid, counted from 1970, today is about 2^30 slots of 2 s, 2^32 of 0.5 s).
    public func nearestSlot(to date: Date) -> (slot: Int, offset: Double)? {
        let exact = date.timeIntervalSince(epoch) / segmentDuration
        let slot = exact.rounded()
        guard slot.isFinite, slot.magnitude < 0x1p40 else { return nil }
        return (Int(slot), (exact - slot) * segmentDuration)
    }

    /// A slot number as an Int, saturating where a Double of slots is past what an Int holds.
    private static func whole(_ slots: Double) -> Int {
        guard slots.isFinite else { return slots.isNaN ? 0 : (slots > 0 ? .max : .min) }
        return slots >= 0x1p62 ? Int(1) << 62 : slots <= -0x1p62 ? -(Int(1) << 62) : Int(slots)
    }
}

/// A grid and nothing more (the ingest placing a pushed angle on its set's slots).
public struct WallClockGrid: SlotGrid, Sendable, Equatable {
    public var epoch: Date
    public var segmentDuration: Double

    public init(epoch: Date, segmentDuration: Double) {
        self.epoch = epoch
        self.segmentDuration = segmentDuration
    }
}
