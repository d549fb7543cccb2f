/// Where the partial segments of Low-Latency HLS (draft-pantos-hls-rfc8216bis §4.4.4.9) fall on
/// the output frame grid: part p of segment k covers [k x D + p x P, k x D + (p + 1) x P) of
/// output time, cut short by the segment's end, and starts on the first frame at or after its
/// start. Every variant and every angle uses the same clock, so part p of segment k is the same
/// moment everywhere, as `SegmentClock` makes segment k.
///
/// Pure, in integers of milliseconds (as `SegmentClock`): no rounding can move a boundary.
public struct PartClock: Sendable, Equatable {
    public let segments: SegmentClock
    /// P, the nominal part duration in seconds (the config's `part_duration`).
    public let partDuration: Double

    /// The most frames any part holds.
    public private(set) var maximumFramesPerPart: Int64
    /// The fewest frames any part but a segment's last holds (the draft's 85% rule exempts
    /// the last).
    public private(set) var minimumFramesPerPart: Int64

    /// The most parts a segment may be cut into: a part's index in its URI has at most three
    /// digits (`OriginPath.largestPartIndex`).
    public static let mostPartsPerSegment = 1000

    /// Nil when P cannot cut D: under a millisecond (the clock counts in them), longer than D,
    /// or so short that a segment would have more than `mostPartsPerSegment` parts.
    public init?(segments: SegmentClock, partDuration: Double) {
        let partMilliseconds = (partDuration * 1000).rounded()
        let segmentMilliseconds = (segments.segmentDuration * 1000).rounded()
        guard partDuration.isFinite, partMilliseconds >= 1, partMilliseconds <= segmentMilliseconds,
              (segmentMilliseconds / partMilliseconds).rounded(.up) <= Double(Self.mostPartsPerSegment) else { return nil }
        self.segments = segments
        self.partDuration = partDuration
        maximumFramesPerPart = 0
        minimumFramesPerPart = 0
        (maximumFramesPerPart, minimumFramesPerPart) = framesPerPart()
    }

    private var segmentMilliseconds: Int64 { Int64((segments.segmentDuration * 1000).rounded()) }
    private var partMilliseconds: Int64 { Int64((partDuration * 1000).rounded()) }
    private var frameRate: FrameRate { segments.frameRate }

    /// How many parts each segment is cut into: D / P, the last one shorter when P does not
    /// divide D.
    public var partsPerSegment: Int { Int((segmentMilliseconds + partMilliseconds - 1) / partMilliseconds) }

    /// The first frame at or after a time given in milliseconds on the output timeline.
    private func firstFrame(atOrAfter milliseconds: Int64) -> Int64 {
        let numerator = milliseconds * Int64(frameRate.numerator)
        let denominator = Int64(frameRate.denominator) * 1000
        return (numerator + denominator - 1) / denominator
    }

    /// The first frame of part `part` of segment `segment`; for `part == partsPerSegment`, the
    /// first frame of the next segment (where the last part ends).
    public func firstFrame(ofPart part: Int, inSegment segment: Int) -> Int64 {
        let offset = min(Int64(part) * partMilliseconds, segmentMilliseconds)
        return firstFrame(atOrAfter: Int64(segment) * segmentMilliseconds + offset)
    }

    /// The segment and part that frame `index` belongs to. Asked for every frame the muxer
    /// writes: the part is estimated from the frame's time and corrected by at most a step each
    /// way (a part starts on the first frame at or after its time), not searched from part 0.
    public func position(ofFrame index: Int64) -> (segment: Int, part: Int) {
        let segment = segments.segment(ofFrame: index)
        // The frame's time in whole milliseconds, rounded down, from its segment's start.
        let milliseconds = index * Int64(frameRate.denominator) * 1000 / Int64(frameRate.numerator)
        let offset = max(0, milliseconds - Int64(segment) * segmentMilliseconds)
        var part = Int(min(offset / partMilliseconds, Int64(partsPerSegment - 1)))
        while part > 0, firstFrame(ofPart: part, inSegment: segment) > index { part -= 1 }
        while part + 1 < partsPerSegment, firstFrame(ofPart: part + 1, inSegment: segment) <= index { part += 1 }
        return (segment, part)
    }

    /// True for the first frame of every part (the first frame of a segment included): where
    /// the muxer closes the part before and starts the next with PAT and PMT.
    public func startsPart(frame index: Int64) -> Bool {
        guard index > 0 else { return true }
        let (segment, part) = position(ofFrame: index)
        return firstFrame(ofPart: part, inSegment: segment) == index
    }

    /// `EXT-X-PART-INF:PART-TARGET`: the longest part, in seconds. At most one frame longer
    /// than P (a part starts on the first frame at or after its time); AVPlayer refuses a whole
    /// asset if one part is longer than PART-TARGET, so the target is what the grid gives.
    public var partTarget: Double { frameRate.time(ofFrame: maximumFramesPerPart) }

    /// Whether every part but a segment's last holds at least 85% of the longest (the draft:
    /// "at least 85% of the Part Target Duration"): false at frame rates too low for P, where
    /// parts alternate between too few frames and one more.
    public var meetsTheDraftsLowerBound: Bool {
        Double(minimumFramesPerPart) >= 0.85 * Double(maximumFramesPerPart)
    }

    private func frames(ofPart part: Int, inSegment segment: Int) -> Int64 {
        firstFrame(ofPart: part + 1, inSegment: segment) - firstFrame(ofPart: part, inSegment: segment)
    }

    /// The longest part and the shortest but a segment's last, over enough segments to see
    /// every phase of the frame grid against the part grid: the grid repeats after at most
    /// `denominator` seconds (1001 at NTSC rates), bounded so a config check stays quick.
    private func framesPerPart() -> (most: Int64, fewest: Int64) {
        let segmentsToSee = min(Int64(frameRate.denominator) * 1000 / max(segmentMilliseconds, 1) + 1, 1100)
        var most: Int64 = 0
        var fewest = Int64.max
        for segment in 0..<Int(segmentsToSee) {
            for part in 0..<partsPerSegment {
                let count = frames(ofPart: part, inSegment: segment)
                most = max(most, count)
                if part < partsPerSegment - 1 { fewest = min(fewest, count) }
            }
        }
        return (most, fewest == .max ? most : fewest)
    }
}
