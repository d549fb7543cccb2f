import Foundation
import HLSPlaylist
import SidelineCore

/// What the publishing core is made with (`SlotPublisher.Settings`): the ladder, the slot
/// cadence, the fill policies, the set's grid, the pair's rules and the rungs shed at start.
public struct SlotPublishingSettings: Sendable, Equatable {
    /// Variant names, best first: "nearest sibling" is by ladder position.
    public var variants: [String]
    public var segmentDuration: Double
    /// How long past its due time a slot waits for its real segment. See Docs/status-codes.md
    /// for how the default was measured.
    public var grace: Double
    public var onVariantFailure: FailedVariantFill
    public var onLateSegment: LateSegmentFill
    /// Whether a real segment that comes after its slot was filled takes the fill's place
    /// in the recording (`takeLate`): a pushed stream's backlog, sent when the uplink
    /// returns. A camera's late segment is dropped, as it always was: its pipeline was
    /// stalled or replaced, and what it finishes late is not worth a second copy.
    public var lateSegmentsReplaceFills: Bool
    /// The set's timeline, for an angle of a set (nil for a stream in no set): slots are the
    /// set's (the cadence never moves off its grid), every entry is dated by its slot's start,
    /// and no slot is left empty (`stale` fills are GAP entries at their deadline; slots a
    /// restart missed are GAP entries up to `SetTimeline.maximumGapSlots`), so every angle
    /// gives slot n the same media sequence number.
    public var setTimeline: SetTimeline?
    /// A box of a redundant pair (issue 35): a run of the encoder leaves the slots it misses
    /// while starting GAP entries (`SlotPublisher.startingGapSlots`), which an edge asks the
    /// other box for; without a pair a viewer is better served by the policy's stand-ins
    /// (VLC 3.0, which knows no EXT-X-GAP, cannot start on one).
    public var pairStartsWithGaps: Bool
    /// Whether a stand-in is encoded as the variant's own segments are
    /// (`standInsJoinTheEncoding`). On the universal grid such a stand-in, restamped onto its
    /// slot's timestamps, is no discontinuity while the run's audio is the stand-in's
    /// (`DiscontinuityRule`, `beginRun(now:standInMatchesRun:)`).
    public var standInsMatchTheEncoding: Bool
    /// Silence after which a variant's encoder counts as stalled and its late slots are
    /// filled (`EncoderLiveness`); an encoder that reports progress is waited for.
    public var stalledAfter: Double
    /// Rungs served without encoding (`CapacityPlan.shedRungs`): failed from the start, out of
    /// the master whatever `onVariantFailure` says, their slots a sibling's copies (a GAP
    /// entry where no sibling has the slot), so a player already on one plays on.
    public var shed: Set<String>
    /// Whether EXT-X-DISCONTINUITY falls only on seams every variant tags (`SeamSchedule`), so
    /// discontinuity sequences align across variants (RFC 8216bis §6.2.2). On in the server
    /// since 2026-12-08: playbin3 had stopped in the variant-failure drill with it, because the
    /// entry after a failed encoder's cut segment went untagged over a hole in its timestamps
    /// (`SlotPublisher.variantFailed` now declares that seam as the encoder fails).
    public var alignsDiscontinuities: Bool
    /// Low-Latency HLS: what parts are listed (nil: none), and how many of the newest entries
    /// keep theirs listed (`PartLedger.kept`).
    public var parts: PartLedger.Settings?
    public var partEntriesKept: Int

    public init(variants: [String], segmentDuration: Double, grace: Double = SlotPublisher.defaultGrace,
                onVariantFailure: FailedVariantFill = .sibling, onLateSegment: LateSegmentFill = .standin, lateSegmentsReplaceFills: Bool = false,
                setTimeline: SetTimeline? = nil, pairStartsWithGaps: Bool = false, standInsMatchTheEncoding: Bool = false,
                stalledAfter: Double = EncoderLiveness.defaultStalledAfter, shed: Set<String> = [], alignsDiscontinuities: Bool = false,
                parts: PartLedger.Settings? = nil, partEntriesKept: Int = 1) {
        self.parts = parts
        self.partEntriesKept = partEntriesKept
        self.alignsDiscontinuities = alignsDiscontinuities
        self.shed = shed
        self.stalledAfter = stalledAfter
        self.pairStartsWithGaps = pairStartsWithGaps
        self.standInsMatchTheEncoding = standInsMatchTheEncoding
        self.variants = variants
        self.segmentDuration = segmentDuration
        self.grace = grace
        self.onVariantFailure = onVariantFailure
        self.onLateSegment = onLateSegment
        self.lateSegmentsReplaceFills = lateSegmentsReplaceFills
        self.setTimeline = setTimeline
    }

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
}
