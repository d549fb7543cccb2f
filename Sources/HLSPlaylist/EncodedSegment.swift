import Foundation

/// One finished MPEG-TS segment of one variant, as the pipeline hands it on: plain values
/// only, so it can cross from the pipeline's threads into Swift concurrency.
public struct EncodedSegment: Sendable {
    /// Position on the output timeline: segment k covers [k x D, (k+1) x D).
    public var index: Int
    /// The real duration, from the first video PTS of this segment to that of the next.
    public var duration: Double
    /// Output-timeline PTS of the first video frame, in seconds.
    public var startTime: Double
    /// Wall-clock time at which the segment's first frame was captured.
    public var programDateTime: Date
    /// The TS bytes, starting with PAT/PMT and an IDR.
    public var bytes: [UInt8]
    /// Where each IDR sits in `bytes`: from the PAT/PMT written before it to the end of its
    /// last TS packet, so the range decodes on its own (for I-frame playlists).
    public var keyframeRanges: [Range<Int>]
    /// Set on the first segment after a break in the timeline.
    public var discontinuity: Bool
    /// A file that already holds exactly `bytes` (a pushed segment kept restamped on arrival):
    /// the recording links it under the entry's name instead of writing the bytes again.
    public var file: String?

    public init(index: Int, duration: Double, startTime: Double, programDateTime: Date, bytes: [UInt8], keyframeRanges: [Range<Int>] = [], discontinuity: Bool = false,
                file: String? = nil) {
        self.index = index
        self.duration = duration
        self.startTime = startTime
        self.programDateTime = programDateTime
        self.bytes = bytes
        self.keyframeRanges = keyframeRanges
        self.discontinuity = discontinuity
        self.file = file
    }
}

/// One part of a segment being made (Low-Latency HLS), handed on as soon as it is muxed: MPEG-TS
/// beginning with PAT and PMT. A segment's bytes are exactly its parts' bytes one after another.
public struct EncodedPart: Sendable, Equatable {
    /// The segment it is part of (`EncodedSegment.index`).
    public var segment: Int
    /// Its place in the segment, from 0.
    public var index: Int
    /// Seconds, from its first video PTS to the next part's.
    public var duration: Double
    /// Output-timeline PTS of its first video frame, in seconds.
    public var startTime: Double
    public var bytes: [UInt8]
    /// Starts with the segment's IDR (the first part of every segment, and only it).
    public var independent: Bool
    /// When the segment's first frame was captured: the EXT-X-PROGRAM-DATE-TIME it will be
    /// listed with, which its parts carry while it is being made.
    public var segmentCaptured: Date?

    public init(segment: Int, index: Int, duration: Double, startTime: Double, bytes: [UInt8], independent: Bool, segmentCaptured: Date? = nil) {
        self.segmentCaptured = segmentCaptured
        self.segment = segment
        self.index = index
        self.duration = duration
        self.startTime = startTime
        self.bytes = bytes
        self.independent = independent
    }
}
