import PipelineCore
import Testing

/// The pure rule for feeding a variant's queue.
@Suite struct FeedPolicyTests {
    let live = FeedPolicy.forInput(live: true, capacity: 8)
    let file = FeedPolicy.forInput(live: false, capacity: 8)

    @Test func aFileEncodedAsFastAsPossibleAlwaysWaits() {
        for queued in [0, 7, 8, 500] {
            #expect(file.decide(queued: queued, essential: false) == .send)
            #expect(file.decide(queued: queued, essential: true) == .send)
        }
    }

    @Test func aLiveInputDropsOrdinaryFramesWhenTheQueueIsFull() {
        #expect(live.decide(queued: 7, essential: false) == .send)
        #expect(live.decide(queued: 8, essential: false) == .drop)
        #expect(live.decide(queued: 100, essential: false) == .drop)
    }

    @Test func segmentStartsAndAudioAreNeverDroppedUntilTheVariantHasStalled() {
        #expect(live.decide(queued: 8, essential: true) == .send)
        #expect(live.decide(queued: live.essentialLimit - 1, essential: true) == .send)
        #expect(live.decide(queued: live.essentialLimit, essential: true) == .abandon)
        #expect(live.essentialLimit > live.capacity)
    }

    @Test func offerNeverWaitsAndRespectsItsLimit() {
        let queue = BoundedQueue<Int>(capacity: 2)
        #expect(queue.offer(1, limit: 2) == .added)
        #expect(queue.offer(2, limit: 2) == .added)
        #expect(queue.offer(3, limit: 2) == .full)
        #expect(queue.offer(3, limit: 3) == .added, "essential messages get more room than the capacity")
        queue.close()
        #expect(queue.offer(4, limit: 10) == .closed)
        #expect([queue.take(), queue.take(), queue.take(), queue.take()] == [1, 2, 3, nil])
    }

    /// A second of frames, never fewer than 8 (a 5 fps input still rides out a start).
    @Test func aVariantMayFallOneSecondBehind() {
        #expect(FeedPolicy.queueCapacity(frameRate: FrameRate(30)) == 30)
        #expect(FeedPolicy.queueCapacity(frameRate: FrameRate(29.97)) == 30)
        #expect(FeedPolicy.queueCapacity(frameRate: FrameRate(5)) == 8)
    }
}
