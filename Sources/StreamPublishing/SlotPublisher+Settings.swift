import Foundation
import HLSPlaylist
import SidelineCore

/// The values the publishing core is made with: its settings, what an earlier process recorded,
/// and why a segment was refused.
extension SlotPublisher {
    /// What the core is made with (`SlotPublishingSettings`).
    public typealias Settings = SlotPublishingSettings

    /// Whether a stream's stand-ins join its own segments as one coded stream: a stream this box
    /// encodes (not a pushed one, whose segments come from the sender's encoder), whose stand-in
    /// goes through the rung's own scaler and x264 settings, parts' included (`StandInEncoder`:
    /// the same SPS, PPS and decode delay at the configured effort step; a rung at a lower step
    /// differs as it does from its own earlier steps, which join untagged too), and fills its
    /// whole slot (`standInDurations` each `segmentDuration`: at a rate whose slot is not a whole
    /// number of frames, 29.97 fps, the stand-in holds the fewest and leaves a frame's hole).
    public static func standInsJoinTheEncoding(isPushed: Bool, standInDurations: [Double], segmentDuration: Double) -> Bool {
        !isPushed && !standInDurations.isEmpty && standInDurations.allSatisfy { abs($0 - segmentDuration) < 0.0005 }
    }

    /// Why a shed rung is failed, as `/api/streams` shows it.
    public static let shedReason = "shed: the calibration says the ladder does not fit this machine; its slots carry a sibling's segments"

    /// The default grace in seconds (`LateSegmentFill.defaultGrace`).
    public static let defaultGrace = LateSegmentFill.defaultGrace

    /// What an earlier process recorded, to continue from (`RestoredRecording`).
    public typealias Restored = RestoredRecording

    /// Why a real segment was not listed.
    public enum Refusal: Sendable, Equatable {
        /// Its slot was already filled (it came after its deadline).
        case slotFilled(slot: Int)
        /// Its variant was showing a sibling's picture, and a sibling published this slot without
        /// the tag coming back needs: the slot keeps the sibling's picture (or a GAP), and the
        /// variant's own segments come back at the seam every variant tags next.
        case awaitingSeam(slot: Int)
        case unknownVariant
    }
}
