import SidelineCore
import SidelineTesting
import StreamPublishing
import Testing

/// Opening retries, the watchdog and stopping, with a manual clock: a 30 s backoff and a 5 s
/// watchdog are tested in microseconds.
@Suite struct PipelineSupervisorTests {
    let rule = WatchdogRule(timeout: 5, segmentDuration: 2)

    @Test func aPipelineThatCannotOpenIsRetriedWithTheOneBackoff() {
        let clock = ManualClock()
        var supervisor = PipelineSupervisor(watchdog: rule, running: false)
        let opens = supervisor.beginOpening()
        #expect(opens)
        let opensTwice = supervisor.beginOpening()
        #expect(!opensTwice, "one opening loop at a time")
        var waits: [Double] = []
        for _ in 0..<7 {
            waits.append(supervisor.openFailed(at: clock.now)!)
            clock.advance(by: waits.last!)
        }
        #expect(waits == [1, 2, 4, 8, 16, 30, 30], "Backoff.encoderRecovery")
        #expect(supervisor.failedAttempts == 7)
        let installs = supervisor.opened()
        #expect(installs)
        #expect(supervisor.running && !supervisor.opening && supervisor.failedAttempts == 0)
        let opensAgain = supervisor.beginOpening()
        #expect(opensAgain, "a later failure starts from one second again")
        let firstWait = supervisor.openFailed(at: clock.now)
        #expect(firstWait == 1)
    }

    @Test func nothingOpensOnceTheStreamStops() {
        var supervisor = PipelineSupervisor(watchdog: rule, running: false)
        let opens = supervisor.beginOpening()
        #expect(opens)
        supervisor.stop()
        #expect(!supervisor.keepsOpening)
        let wait = supervisor.openFailed(at: 0)
        #expect(wait == nil, "the retry loop ends")
        let opensAfterStop = supervisor.beginOpening()
        #expect(!opensAfterStop)
        var late = PipelineSupervisor(watchdog: rule, running: false)
        _ = late.beginOpening()
        late.stop()
        let installs = late.opened()
        #expect(!installs, "a pipeline that opens as the stream stops is not started")
        #expect(!late.running)
    }

    @Test func theWatchdogAbandonsAQuietPipelineOnce() {
        let clock = ManualClock(0)
        var supervisor = PipelineSupervisor(watchdog: rule, running: true)
        // Before its first segment a run gets one segment duration more (5 + 2 s).
        clock.advance(by: 6.9)
        let early = supervisor.watch(now: clock.now, runStartedAt: 0, lastAccepted: nil, finished: false)
        #expect(early == nil)
        clock.advance(by: 0.2)
        let quiet = supervisor.watch(now: clock.now, runStartedAt: 0, lastAccepted: nil, finished: false)
        #expect(quiet.map { abs($0 - 7.1) < 1e-9 } == true)
        #expect(!supervisor.running)
        clock.advance(by: 0.5)
        let again = supervisor.watch(now: clock.now, runStartedAt: 0, lastAccepted: nil, finished: false)
        #expect(again == nil, "abandoned once, not at every look")
        let reopens = supervisor.beginOpening()
        #expect(reopens)
        let installs = supervisor.opened()
        #expect(installs)
        // The new run accepted a segment at 9 s: quiet from there.
        let beforeTimeout = supervisor.watch(now: 13.9, runStartedAt: 8, lastAccepted: 9, finished: false)
        #expect(beforeTimeout == nil)
        let afterTimeout = supervisor.watch(now: 14.1, runStartedAt: 8, lastAccepted: 9, finished: false)
        #expect(afterTimeout != nil)
    }

    @Test func theWatchdogLeavesAloneWhatFinishedStoppedOrIsOff() {
        var finished = PipelineSupervisor(watchdog: rule, running: true)
        let afterItsEnd = finished.watch(now: 100, runStartedAt: 0, lastAccepted: nil, finished: true)
        #expect(afterItsEnd == nil, "a file played to its end")
        var stopping = PipelineSupervisor(watchdog: rule, running: true)
        stopping.stop()
        let whileStopping = stopping.watch(now: 100, runStartedAt: 0, lastAccepted: nil, finished: false)
        #expect(whileStopping == nil)
        var off = PipelineSupervisor(watchdog: WatchdogRule(timeout: 0, segmentDuration: 2), running: true)
        let whenOff = off.watch(now: 100, runStartedAt: 0, lastAccepted: nil, finished: false)
        #expect(whenOff == nil, "watchdog_timeout: 0")
        var opening = PipelineSupervisor(watchdog: rule, running: false)
        let whileOpening = opening.watch(now: 100, runStartedAt: 0, lastAccepted: nil, finished: false)
        #expect(whileOpening == nil, "no pipeline runs while one is opened")
    }
}
