import Foundation

/// The one rule for where a slot grid of period D begins: the first multiple of D since 1970
/// at or after `now`, in whole milliseconds (what EXT-X-PROGRAM-DATE-TIME can say). Any two
/// clocks that agree cut on the same grid without telling each other: an angle set's timeline
/// (`SetTimeline`) and a pusher's (`PushTimeline`) both start by it, so a pushed angle's
/// segments fall on the set's slots. Pure.
public enum SlotGrid {
    public static func epoch(atOrAfter now: Date, segmentDuration: Double) -> Date {
        let period = max(1, (segmentDuration * 1000).rounded())
        let milliseconds = (now.timeIntervalSince1970 * 1000).rounded(.up)
        return Date(timeIntervalSince1970: (milliseconds / period).rounded(.up) * period / 1000)
    }
}
