import PipelineCore
import Synchronization
import Testing

/// The admin API's drills as the pipeline's threads read them: each request taken once, and
/// the hold-downs over when their time is up on the injected clock.
@Suite struct PipelineDrillsTests {
    final class HandClock: Sendable {
        let start = ContinuousClock.now
        let elapsed = Mutex(Duration.zero)
        func advance(_ seconds: Double) { elapsed.withLock { $0 += .milliseconds(Int64(seconds * 1000)) } }
        var now: ContinuousClock.Instant { start + elapsed.withLock { $0 } }
    }

    @Test func aFailedVariantFailsOnceAndIsHeldDownForItsSeconds() {
        let clock = HandClock()
        let drills = PipelineDrills(now: { clock.now })
        drills.failVariant("360p", seconds: 20)
        #expect(drills.takeFailure(for: "180p") == false)
        #expect(drills.takeFailure(for: "360p"))
        #expect(drills.takeFailure(for: "360p") == false, "the failure is taken once")
        #expect(drills.isVariantHeldDown("360p"))
        clock.advance(19.9)
        #expect(drills.isVariantHeldDown("360p"))
        clock.advance(0.2)
        #expect(!drills.isVariantHeldDown("360p"))
        drills.failVariant("180p")
        clock.advance(3_600)
        #expect(drills.isVariantHeldDown("180p"), "without seconds: until the pipeline restarts")
    }

    @Test func aCutIsTakenOnceAndHoldsTheInputDownForItsSeconds() {
        let clock = HandClock()
        let drills = PipelineDrills(now: { clock.now })
        #expect(!drills.takeCut() && !drills.isInputHeldDown)
        drills.cutInput(seconds: 20)
        #expect(drills.takeCut())
        #expect(!drills.takeCut())
        clock.advance(19)
        #expect(drills.isInputHeldDown)
        clock.advance(1.5)
        #expect(!drills.isInputHeldDown)
    }

    @Test func aStallIsTakenOnce() {
        let drills = PipelineDrills()
        #expect(drills.takeStall() == nil)
        drills.stall(seconds: 12)
        #expect(drills.takeStall() == 12)
        #expect(drills.takeStall() == nil)
    }
}
