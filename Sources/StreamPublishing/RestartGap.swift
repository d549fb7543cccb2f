import SidelineCore

/// The slots a stream missed while no process ran (a crash, `kill -9`, a service restart), and
/// whether the restarted process fills them or skips them.
///
/// Filled, with the policy's stand-ins, as each slot ends (`SlotCadence.fillTime`): a player
/// still at the live edge sees the playlist grow on time instead of waiting out the downtime,
/// the late grace and the new pipeline's start (measured 2026-12-08: a `kill -9` restarted 1 s
/// later left 6.9 s between two new entries, and GStreamer's `playbin` stalled up to 7 s).
/// Skipped, to a new run of the timeline, when nothing fills late slots (`on_late_segment:
/// stale`) or the outage outlasts `longestFilledSeconds`: no player that watched is still
/// waiting after that, and a jump serves the recording better than a minute of cards.
struct RestartGap {
    /// The longest outage whose slots are filled: players give up on a playlist that stops
    /// answering within 5-10 s (measured), so half a minute covers every one still waiting.
    static let longestFilledSeconds = 30.0

    /// The first slot whose span starts no earlier than now, less half the grace: a pipeline
    /// started now delivers it in time.
    let current: Int
    /// Whether the slots before `current` are skipped rather than filled.
    let skips: Bool

    /// `lastSlot`: the recording's last slot; `passed`: seconds from its end to now.
    init(settings: SlotPublishingSettings, lastSlot: Int, passed: Double) {
        // A recording's dates come from disk: a year bounds what a clock set wrong can make of them.
        let slots = ((min(passed, 366 * 86_400) - settings.grace / 2) / settings.segmentDuration).rounded(.up)
        let missed = slots.isFinite ? max(0, Int(slots)) : 0
        current = lastSlot + 1 + missed
        skips = missed > 0 && (settings.onLateSegment == .stale || passed > Self.longestFilledSeconds)
    }
}
