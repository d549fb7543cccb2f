import PipelineCore
import Testing

/// The clip cut rule over plain packet times: where a clip starts, what it keeps, where it ends,
/// and timestamps that go back. Times are multiples of 1/8 s, exact in binary, so the placed
/// times compare exactly.
@Suite struct ClipCutTests {
    /// A video packet: 4 frames a second, shown `time`, decoded `decode` (B-frames: earlier).
    static func video(_ time: Double, key: Bool = false, decode: Double? = nil) -> ClipPacketTiming {
        ClipPacketTiming(stream: 0, isVideo: true, isKey: key, time: time, decodeTime: decode ?? time, duration: 0.25)
    }

    static func audio(_ time: Double) -> ClipPacketTiming {
        ClipPacketTiming(stream: 1, isVideo: false, isKey: true, time: time, decodeTime: time, duration: 0.125)
    }

    /// `seconds` of video from `from`, a keyframe on every whole second (Sideline's segments
    /// start with one), in file order.
    static func gops(from: Double = 0, seconds: Int) -> [ClipPacketTiming] {
        (0..<(seconds * 4)).map { n in video(from + Double(n) * 0.25, key: n % 4 == 0) }
    }

    struct Cut {
        var placed: [ClipCut<Int>.Placed]
        var cut: ClipCut<Int>
        /// The input times of what went in, in order.
        func times(_ packets: [ClipPacketTiming]) -> [Double] { placed.map { packets[$0.packet].time } }
    }

    /// Feeds every packet as `ClipRemuxer` does: stops reading once the cut reached the end.
    static func cut(_ packets: [ClipPacketTiming], start: Double, end: Double) throws(ClipError) -> Cut {
        var cut = ClipCut<Int>(start: start, end: end)
        var placed: [ClipCut<Int>.Placed] = []
        for (index, packet) in packets.enumerated() {
            placed += try cut.take(index, packet)
            if cut.reachedEnd { break }
        }
        placed += try cut.finish()
        return Cut(placed: placed, cut: cut)
    }

    /// Where the clip starts for an asked start: the last keyframe at or before it (half a
    /// millisecond absorbs rounding), the first keyframe when none is before it.
    @Test(arguments: [
        // (asked start, the keyframe the clip starts on, snapped by)
        (0.0, 0.0, 0.0),
        (1.0, 1.0, 0.0),
        (1.5, 1.0, 0.5),
        (1.999, 1.0, 0.999),
        (2.0, 2.0, 0.0),
        // A keyframe up to half a millisecond after the asked start is the start.
        (1.9996, 2.0, 0.0),
        (1.999_4, 1.0, 0.999_4),
        (3.75, 3.0, 0.75),
    ])
    func theClipStartsOnTheLastKeyframeAtOrBeforeTheAskedStart(asked: Double, keyframe: Double, snappedBy: Double) throws {
        let packets = Self.gops(seconds: 4)
        let result = try Self.cut(packets, start: asked, end: 10)
        #expect(result.times(packets).first == keyframe)
        #expect(result.placed.first?.presentation == 0)
        #expect(abs(result.cut.snappedBy - snappedBy) < 1e-9, "snapped by \(result.cut.snappedBy)")
        #expect(result.times(packets) == packets.map(\.time).filter { $0 >= keyframe }, "every frame from the keyframe on")
        #expect(result.placed.map(\.presentation) == packets.map(\.time).filter { $0 >= keyframe }.map { $0 - keyframe })
    }

    /// Times count from the first video packet, not from zero or from audio read before it.
    @Test func timesCountFromTheFirstVideoPacket() throws {
        let packets = [Self.audio(9.875)] + Self.gops(from: 10, seconds: 3)
        let result = try Self.cut(packets, start: 1.25, end: 2)
        #expect(result.times(packets) == [11, 11.25, 11.5, 11.75])
        #expect(result.cut.snappedBy == 0.25)
        #expect(result.cut.duration == 1)
    }

    /// No keyframe at or before the asked start, but one was read before decoding passed it:
    /// the clip starts on that one, what came before it stays out, and it is not counted as
    /// snapped.
    @Test func framesBeforeTheFirstKeyframeAreLeftOut() throws {
        let packets = [Self.video(0, decode: -0.25), Self.video(0.25, key: true, decode: 0), Self.video(0.5, decode: 0.25), Self.video(0.75, decode: 0.5)]
        let result = try Self.cut(packets, start: 0, end: 5)
        #expect(result.times(packets) == [0.25, 0.5, 0.75])
        #expect(result.cut.snappedBy == 0)
    }

    /// No keyframe read by the time decoding passed the asked start (or by the end of the
    /// input): no clip.
    @Test func noKeyframeAtTheStartIsAnError() {
        let packets = (0..<8).map { Self.video(Double($0) * 0.25) }
        #expect(throws: ClipError.self) { try Self.cut(packets, start: 0.5, end: 1.5) }
        #expect(throws: ClipError.self) { try Self.cut(Array(packets.prefix(2)), start: 1, end: 2) }
        // A keyframe just after the frame that passed the start comes too late.
        #expect(throws: ClipError.self) { try Self.cut([Self.video(0), Self.video(0.25), Self.video(0.5, key: true)], start: 0, end: 2) }
    }

    /// Audio before the start keyframe's time stays out wherever the muxer put it in the file;
    /// audio from that time on goes in, also when it came before the keyframe in the file.
    @Test func audioFromTheKeyframesTimeOn() throws {
        var packets = Self.gops(seconds: 2)
        packets.insert(contentsOf: [Self.audio(0.875), Self.audio(1), Self.audio(1.125)], at: 4)
        packets.append(Self.audio(1.5))
        let result = try Self.cut(packets, start: 1, end: 5)
        #expect(result.times(packets) == [1, 1.125, 1, 1.25, 1.5, 1.75, 1.5])
        #expect(result.placed.filter { packets[$0.packet].isVideo == false }.map(\.presentation) == [0, 0.125, 0.5])
    }

    /// The keyframe is shown at 0; frames decoded before it (B-frame reordering) get negative
    /// decode times, which the MP4 carries with an edit list.
    @Test func framesDecodedBeforeTheKeyframeGetNegativeDecodeTimes() throws {
        // Decode order: I (shown 1.0), P (shown 1.75), B (1.25), B (1.5); decoded 0.125 earlier.
        let packets = [Self.video(0, key: true, decode: -0.125), Self.video(1, key: true, decode: 0.875), Self.video(1.75, decode: 1),
                       Self.video(1.25, decode: 1.125), Self.video(1.5, decode: 1.25), Self.video(2, key: true, decode: 1.875)]
        let result = try Self.cut(packets, start: 1, end: 3)
        #expect(result.times(packets) == [1, 1.75, 1.25, 1.5, 2])
        #expect(result.placed.map(\.decode) == [-0.125, 0, 0.125, 0.25, 0.875])
        #expect(result.placed.map(\.presentation) == [0, 0.75, 0.25, 0.5, 1])
    }

    /// What starts at or after the end stays out, except a video frame decoded before the end
    /// (frames shown before the end may refer to it); the first video frame past the end stops
    /// the reading.
    @Test func theEndCut() throws {
        let packets = [Self.video(0, key: true, decode: -0.25), Self.video(0.75, decode: 0), Self.video(0.25, decode: 0.25), Self.video(0.5, decode: 0.5),
                       Self.audio(0.5), Self.audio(0.625), Self.video(1, key: true), Self.video(1.25)]
        let result = try Self.cut(packets, start: 0, end: 0.625)
        // 0.75 is shown after the end but decoded at 0; 0.5 and its audio go in; audio at
        // 0.625 (the end) stays out; the keyframe at 1 ends the reading.
        #expect(result.times(packets) == [0, 0.75, 0.25, 0.5, 0.5])
        #expect(result.cut.reachedEnd)
        #expect(result.cut.written == 5)
        #expect(result.cut.duration == 1, "the longest stream: 0.75 + 0.25")
    }

    /// Half a millisecond before the end counts as the end (rounding of a 90 kHz clock).
    @Test func aFrameWithinHalfAMillisecondOfTheEndIsPastIt() throws {
        let packets = Self.gops(seconds: 2)
        #expect(try Self.cut(packets, start: 0, end: 1.2504).times(packets).last == 1)
        #expect(try Self.cut(packets, start: 0, end: 1.2506).times(packets).last == 1.25)
    }

    /// Timestamps that go back by more than half a second (a recording across a restart of an
    /// older version) are shifted to follow on; each stream keeps its shift for what follows.
    @Test func timestampsThatGoBackFollowOn() throws {
        let packets = Self.gops(seconds: 2) + Self.gops(from: 0, seconds: 1) + [Self.audio(0.25)]
        let result = try Self.cut(packets, start: 0, end: 10)
        let shown = result.placed.filter { packets[$0.packet].isVideo }.map(\.presentation)
        // The second run follows the last frame (1.75) by its duration: 2.0, 2.25, ...
        #expect(shown == [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75])
        #expect(result.placed.map(\.decode) == result.placed.map(\.presentation))
        // The audio stream did not go back: it keeps its own time.
        #expect(result.placed.last?.presentation == 0.25)
        #expect(result.cut.duration == 3)
    }

    /// A step back of half a second or less is left as it is (here exactly half a second).
    @Test func aSmallStepBackIsNotShifted() throws {
        let packets = [Self.video(0, key: true), Self.video(0.25), Self.video(1), Self.video(0.5), Self.video(1.25)]
        let result = try Self.cut(packets, start: 0, end: 10)
        #expect(result.placed.map(\.presentation) == [0, 0.25, 1, 0.5, 1.25])
    }

    /// A clip shorter than the look-ahead (the input ends before decoding passed the asked
    /// start): the start is chosen from what was read.
    @Test func theStartIsChosenAtTheEndOfTheInputWhenNothingPassedIt() throws {
        let packets = Self.gops(seconds: 2)
        let result = try Self.cut(packets, start: 1.875, end: 3)
        #expect(result.times(packets) == [1, 1.25, 1.5, 1.75])
        #expect(result.cut.snappedBy == 0.875)
        #expect(result.cut.reachedEnd == false)
    }

    /// Packets before the first video packet decide nothing on their own.
    @Test func audioAloneDecidesNothing() throws {
        let result = try Self.cut([Self.audio(0), Self.audio(0.125)], start: 0, end: 1)
        #expect(result.placed.isEmpty && result.cut.written == 0)
    }
}
