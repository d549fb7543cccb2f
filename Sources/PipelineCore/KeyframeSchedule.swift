/// Where a rung's encoder forces an IDR: the first frame of every segment (so a segment starts
/// where a player can start decoding), and, with `everyPart`, the first frame of every part of
/// the Low-Latency HLS grid too.
///
/// Why every part, on a redundant pair (`redundancy.keyframe_every_part`): two boxes encode the
/// same camera with encoders of their own, so their bit streams differ. A low-latency player
/// that moves to the other box in the middle of a segment (an edge that fails over, hls.js
/// steering) decodes the other box's next part with the first box's frames as references:
/// corrupt pictures until the next keyframe, or a jump when hls.js re-buffers the segment
/// (Docs/benchmarks.md, "Issue 35": 5-31 frames a move). When every part starts with an IDR,
/// every part decodes on its own and a move at any part boundary is clean (0 lost, 0 repeated
/// in the same benchmark). It costs picture quality at the same bit rate.
public struct KeyframeSchedule: Sendable, Equatable {
    public let segments: SegmentClock
    /// The part grid; nil without parts (then only segments start with an IDR).
    public let parts: PartClock?
    public let everyPart: Bool

    public init(segments: SegmentClock, parts: PartClock?, everyPart: Bool) {
        self.segments = segments
        self.parts = parts
        self.everyPart = everyPart
    }

    /// Whether the frame with output index `index` is encoded as an IDR, given the frame this
    /// encoder encoded before it (`previous`; nil for its first). With `everyPart` that is the
    /// first frame encoded in each part, not only a part's first frame on the grid: a variant
    /// that falls behind has frames left out (`FeedPolicy` keeps only a segment's first frame
    /// for it), and a part whose first frame was left out must still start with an IDR.
    public func forcesKeyframe(frame index: Int64, after previous: Int64?) -> Bool {
        if segments.startsSegment(frame: index) { return true }
        guard everyPart, let parts else { return false }
        guard let previous, previous < index else { return true }
        return parts.position(ofFrame: previous) != parts.position(ofFrame: index)
    }
}
