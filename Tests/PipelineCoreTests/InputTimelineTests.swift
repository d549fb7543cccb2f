import PipelineCore
import Testing

/// Where the input's frames fall across loops of a file and switches of input (camera, slate,
/// camera): the timeline never goes back, and each new pass or input starts where the last one
/// ended.
@Suite struct InputTimelineTests {
    let frame = 1.0 / 25

    @Test func theFirstVideoStampIsTimeZeroAndAudioSharesIt() {
        var timeline = InputTimeline(frameDuration: frame)
        #expect(timeline.audio(stamp: 10) == nil, "no audio before the first video frame sets the origin")
        #expect(timeline.video(stamp: 10) == 0)
        #expect(abs(timeline.video(stamp: 10.04) - 0.04) < 1e-9)
        #expect(timeline.audio(stamp: 10.5) == 0.5)
        #expect(abs(timeline.end - 0.08) < 1e-9)
    }

    @Test func aLoopedFileContinuesWhereItsLastPassEnded() {
        var timeline = InputTimeline(frameDuration: 0.5)
        _ = timeline.video(stamp: 1)
        _ = timeline.video(stamp: 2.5)
        timeline.rewound()
        // The file's stamps start over; the origin holds, and the pass follows the last frame's end.
        #expect(timeline.video(stamp: 1) == 2)
        #expect(timeline.video(stamp: 1.5) == 2.5)
        #expect(timeline.audio(stamp: 1.25) == 2.25)
    }

    @Test func aNewInputSetsItsOwnOriginAfterTheLastFrame() {
        var timeline = InputTimeline(frameDuration: 0.5)
        _ = timeline.video(stamp: 100)
        _ = timeline.video(stamp: 103)
        timeline.switched()
        #expect(timeline.audio(stamp: 7) == nil, "the slate's audio waits for its first video frame")
        #expect(timeline.video(stamp: 7) == 3.5)
        #expect(timeline.video(stamp: 8) == 4.5)
        timeline.switched()
        #expect(timeline.video(stamp: 0) == 5)
    }

    @Test func aFrameWithoutAStampTakesTheNextSlot() {
        var timeline = InputTimeline(frameDuration: 0.5)
        #expect(timeline.video(stamp: nil) == 0)
        #expect(timeline.video(stamp: nil) == 0.5)
        #expect(timeline.audio(stamp: 3) == 3, "with no stamp the origin is 0")
        timeline.switched()
        #expect(timeline.video(stamp: nil) == 1)
    }

    @Test func anEarlierStampNeverMovesTheEndBack() {
        var timeline = InputTimeline(frameDuration: 0.5)
        _ = timeline.video(stamp: 0)
        _ = timeline.video(stamp: 4)
        #expect(timeline.video(stamp: 1) == 1)
        #expect(timeline.end == 4.5)
    }
}
