import EncoderEffort
import Foundation
import HLSPlaylist

/// What the pipeline reports, from its own threads, to whoever wired it up.
public enum PipelineEvent: Sendable {
    /// A variant's real format, known once its encoder produced the first SPS.
    case variantFormat(variant: String, VariantFormat)
    /// A finished segment of one variant.
    case segment(variant: String, EncodedSegment)
    /// A finished part of a segment being made (with `PipelineConfiguration.partDuration`),
    /// before the segment it is part of.
    case part(variant: String, EncodedPart)
    /// A variant's encoder is making pictures (`EncoderProgress.interval` apart at most while it
    /// encodes): a slot it is late for waits for it instead of being filled.
    case progress(variant: String)
    /// What a variant's encoder measured over the segment that just ended, on a live input, and
    /// whether it runs at its cheapest effort step: what the box sheds whole rungs by.
    case segmentLoad(variant: String, atCheapestStep: Bool, SegmentLoad)
    /// One variant's encoder failed; the others go on.
    case variantFailed(variant: String, reason: String)
    /// The input failed while reading. The pipeline flushes what it has and finishes.
    case inputFailed(PipelineError)
    /// A live input was lost at `since`; the pipeline reconnects and encodes the slate
    /// meanwhile. Segments from `firstSlateSegment` on show the slate until `.inputRestored`.
    case inputLost(reason: String, since: Date, firstSlateSegment: Int)
    /// The input is back at `at`; segment `firstLiveSegment` is the first with its pictures.
    case inputRestored(at: Date, firstLiveSegment: Int)
    /// A variant's encoder effort: its starting step at its first segment boundary on a live
    /// input, then every change the effort rule made (`change` and the `load` it saw).
    case effort(variant: String, EffortReport)
    /// Every variant has written its last segment. `endOfStream` is true when the input ended
    /// or the operator stopped the stream, so its playlists can be closed with EXT-X-ENDLIST.
    case finished(endOfStream: Bool)
}

/// Where a variant's encoder effort stands, and why it moved.
public struct EffortReport: Sendable, Equatable {
    /// Steps below the configured effort (0 = as configured).
    public var step: Int
    /// The step's name: the x264 preset, or `ultrafast-b`.
    public var name: String
    public var change: EffortChange?
    public var load: SegmentLoad?

    public init(step: Int, name: String, change: EffortChange?, load: SegmentLoad?) {
        self.step = step
        self.name = name
        self.change = change
        self.load = load
    }
}

/// Counters for the console status line and the logs. A snapshot: plain values.
public struct PipelineStatistics: Sendable, Equatable {
    /// Output media time encoded so far by this run (first variant), in seconds: from the
    /// run's first frame, whatever timeline time it has (a slot of a set's grid, or of the
    /// universal grid, far from 0).
    public var mediaTime: Double = 0
    /// Where this run's output began on its timeline (seconds), once a frame was encoded.
    public var timelineStart: Double?
    public var segments = 0
    public var bytesWritten: Int64 = 0
    public var corruptPackets = 0
    public var droppedFrames = 0
    /// Frames a variant missed because it could not keep up with a live input (see `FeedPolicy`).
    public var framesDroppedBySlowVariants = 0
    public var repeatedFrames = 0
    public var timestampJumps = 0
    public var loops = 0
    /// Times a live input was lost (each ridden out with the slate while reconnecting).
    public var inputLosses = 0
    public init() {}
}
