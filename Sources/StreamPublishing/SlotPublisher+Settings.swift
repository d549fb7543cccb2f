import Foundation
import HLSPlaylist
import SidelineCore

/// The values the publishing core is made with: its settings, what an earlier process recorded,
/// and why a segment was refused.
extension SlotPublisher {
    /// What the core is made with (`SlotPublishingSettings`).
    public typealias Settings = SlotPublishingSettings

    /// Why a shed rung is failed, as `/api/streams` shows it.
    public static let shedReason = "shed: the calibration says the ladder does not fit this machine; its slots carry a sibling's segments"

    /// The default grace in seconds (`LateSegmentFill.defaultGrace`).
    public static let defaultGrace = LateSegmentFill.defaultGrace

    /// What an earlier process recorded, to continue from (`RestoredRecording`).
    public typealias Restored = RestoredRecording

    /// Why a real segment was not listed (`SlotRefusal`).
    public typealias Refusal = SlotRefusal
}
