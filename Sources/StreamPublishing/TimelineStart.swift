import Foundation
import SidelineCore

/// Where a publishing core's timeline starts (`SlotPublisher.init`): the first slot every
/// variant lists, the timeline's runs, the cadence's anchor and the anchor slot dates count
/// from, for a new stream, an angle of a set (the set's grid) and a restarted recording
/// (`RestartGap`).
struct TimelineStart {
    var next: Int
    var timeline: StreamTimeline
    var cadence: SlotCadence
    var dateAnchor: DateAnchor?
    /// Slots that passed while no process ran were skipped: the next entry follows a jump.
    var skipped = false
    /// A new recording on the universal grid begins at the slot of now: its entry n is slot n,
    /// and its media sequence numbers are slot numbers, from this one.
    var numberedFrom: Int?

    /// `now`, `wallNow`: the monotonic and wall clocks at the same instant.
    init(settings: SlotPublishingSettings, restored: SlotPublisher.Restored?, now: Double, wallNow: Date) {
        timeline = restored?.timeline ?? StreamTimeline()
        cadence = SlotCadence(segmentDuration: settings.segmentDuration, grace: settings.grace)
        let entries = restored?.entries ?? 0
        next = timeline.slot(ofEntry: entries)
        if let grid = settings.setTimeline {
            // An angle of a set: the set's grid, whatever this angle recorded or when it starts.
            cadence.fix(slot: 0, startingAt: now + grid.epoch.timeIntervalSince(wallNow))
            dateAnchor = DateAnchor(slot: 0, date: grid.epoch)
            if grid.isUniversal && entries == 0 {
                next = grid.firstSlot(startingAt: wallNow.addingTimeInterval(-settings.grace / 2))
                timeline = StreamTimeline(runs: [.init(firstEntry: 0, firstSlot: next)])
                numberedFrom = next
            }
        } else if let restored, entries > 0, let last = restored.lastProgramDateTime {
            // Continue from the recorded end: the slots missed since are filled as they end, or
            // skipped to the first slot that starts no earlier than now.
            let lastSlot = timeline.slot(ofEntry: entries - 1)
            let end = last.addingTimeInterval(restored.lastDuration)
            let gap = RestartGap(settings: settings, lastSlot: lastSlot, passed: wallNow.timeIntervalSince(end))
            dateAnchor = DateAnchor(slot: lastSlot, date: last)
            let currentStarts = end.addingTimeInterval(Double(gap.current - lastSlot - 1) * settings.segmentDuration)
            cadence.anchor(slot: gap.current, startingAt: now + currentStarts.timeIntervalSince(wallNow))
            if gap.skips {
                next = gap.current
                timeline.skip(toSlot: next, atEntry: entries)
                skipped = true
            }
        }
    }
}
