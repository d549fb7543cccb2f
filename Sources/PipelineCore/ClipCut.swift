/// Which packets of the recorded segments go into a clip, and their timestamps in it: the rule
/// `ClipRemuxer` carries out with libavformat, over plain times so each case is tested alone.
///
/// - The clip starts on the last video keyframe at or before the asked start (a copy can only
///   start on one; Sideline's segments start with an IDR, so that is at worst the start of the
///   segment holding the asked start); `snappedBy` says how far before. Packets are held only
///   until the keyframe is known: at most about a segment.
/// - It ends at the asked end: what starts before it (and video decoded before it).
/// - The keyframe is shown at 0; frames decoded before it (B-frames) get negative decode times.
/// - Timestamps that go back (a recording made by an older version across a restart) are
///   shifted to follow on, so the clip never goes back.
///
/// `Packet` is whatever the caller writes (the remuxer's packet, a number in the tests): the
/// rule holds it while it waits for the keyframe and hands it back with its new times.
public struct ClipCut<Packet> {
    /// A packet to write now, with its times in the clip (seconds; the start keyframe at 0).
    public struct Placed {
        public let packet: Packet
        public let presentation: Double
        public let decode: Double
        public let duration: Double
    }

    /// Seconds from the first video packet's time, which is where the job's times count from.
    public let start: Double
    public let end: Double
    /// Half a millisecond: absorbs the rounding of a 90 kHz clock into seconds.
    static var tolerance: Double { 0.0005 }
    /// A stream whose timestamps go back by more than this follows on instead.
    static var backwardJump: Double { 0.5 }

    /// The first video packet's time.
    private var base: Double?
    /// The input time shown at 0 in the clip: the chosen keyframe's presentation time.
    private var origin: Double?
    /// Packets held until the start keyframe is known.
    private var held: [(packet: Packet, timing: ClipPacketTiming)] = []
    /// Added to a stream's times once its timestamps went back.
    private var shift: [Int: Double] = [:]
    private var lastTime: [Int: Double] = [:]
    /// Packets placed so far.
    public private(set) var written = 0
    /// Seconds of media in the clip (the longest stream).
    public private(set) var duration = 0.0
    /// How many seconds before the asked start the clip starts (0 when the start was a keyframe).
    public private(set) var snappedBy = 0.0
    /// A video packet at or after the end was seen: nothing later can go in.
    public private(set) var reachedEnd = false

    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    /// The packets to write now, in order, once `packet` (the next in the file's order) is read.
    public mutating func take(_ packet: Packet, _ timing: ClipPacketTiming) throws(ClipError) -> [Placed] {
        let timing = followingOn(timing)
        if base == nil {
            guard timing.isVideo else {
                held.append((packet, timing))
                return []
            }
            base = timing.time
        }
        guard let base else { return [] }
        if origin != nil { return place(packet, timing).map { [$0] } ?? [] }
        held.append((packet, timing))
        // Keyframes come in decode order with rising times: once decoding has passed the asked
        // start, no later keyframe can start at or before it.
        guard timing.isVideo && timing.decodeTime > base + start + Self.tolerance else { return [] }
        return try choose()
    }

    /// The end of the input: a clip shorter than the look-ahead starts on what was read.
    public mutating func finish() throws(ClipError) -> [Placed] {
        guard origin == nil, !held.isEmpty else { return [] }
        return try choose()
    }

    /// Where a stream's timestamps went back by more than half a second, it follows on from
    /// where it was instead.
    private mutating func followingOn(_ timing: ClipPacketTiming) -> ClipPacketTiming {
        var timing = timing
        let stream = timing.stream
        timing.moved(by: shift[stream] ?? 0)
        if let last = lastTime[stream], timing.decodeTime < last - Self.backwardJump {
            let gap = last - timing.decodeTime + max(timing.duration, 0.001)
            shift[stream, default: 0] += gap
            timing.moved(by: gap)
        }
        lastTime[stream] = timing.decodeTime
        return timing
    }

    /// Chooses the start keyframe among the held packets and places what follows it.
    private mutating func choose() throws(ClipError) -> [Placed] {
        guard let base else { return [] }
        let asked = base + start
        let keyframes = held.indices.filter { held[$0].timing.isVideo && held[$0].timing.isKey }
        guard let firstKey = keyframes.first else { throw ClipError(reason: "no video keyframe at the start of the clip") }
        let chosen = keyframes.last(where: { held[$0].timing.time <= asked + Self.tolerance }) ?? firstKey
        let keyTime = held[chosen].timing.time
        snappedBy = max(0, asked - keyTime)
        origin = keyTime
        // Video from the keyframe on (in decode order); audio from the keyframe's time on,
        // wherever the muxer put it in the file (sound before the picture plays over nothing).
        let kept = held.indices.filter { held[$0].timing.isVideo ? $0 >= chosen : held[$0].timing.time >= keyTime }.map { held[$0] }
        held = []
        return kept.compactMap { place($0.packet, $0.timing) }
    }

    /// The packet with its times in the clip, or nil when it is left out at the end.
    private mutating func place(_ packet: Packet, _ timing: ClipPacketTiming) -> Placed? {
        guard let origin, let base else { return nil }
        let end = base + self.end
        // Whatever starts at or after the end stays out (half a millisecond absorbs rounding),
        // except a video frame decoded before the end: frames shown before the end may refer to it.
        if timing.time >= end - Self.tolerance && (!timing.isVideo || timing.decodeTime >= end - Self.tolerance) {
            if timing.isVideo { reachedEnd = true }
            return nil
        }
        let shown = timing.time - origin
        written += 1
        duration = max(duration, shown + timing.duration)
        return Placed(packet: packet, presentation: shown, decode: timing.decodeTime - origin, duration: timing.duration)
    }
}

extension ClipPacketTiming {
    fileprivate mutating func moved(by seconds: Double) {
        time += seconds
        decodeTime += seconds
    }
}

extension ClipCut: Sendable where Packet: Sendable {}
extension ClipCut.Placed: Sendable where Packet: Sendable {}
extension ClipCut.Placed: Equatable where Packet: Equatable {}

/// A packet's place on the recording's timeline, in seconds.
public struct ClipPacketTiming: Sendable, Equatable {
    public var stream: Int
    public var isVideo: Bool
    public var isKey: Bool
    /// Presentation time.
    public var time: Double
    public var decodeTime: Double
    public var duration: Double

    public init(stream: Int, isVideo: Bool, isKey: Bool, time: Double, decodeTime: Double, duration: Double) {
        self.stream = stream
        self.isVideo = isVideo
        self.isKey = isKey
        self.time = time
        self.decodeTime = decodeTime
        self.duration = duration
    }
}
