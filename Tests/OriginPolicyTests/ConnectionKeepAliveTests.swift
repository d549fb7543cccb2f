import OriginPolicy
import Testing

/// When an idle connection closes and when a draining one does, on readings of a clock in seconds.
@Suite struct ConnectionKeepAliveTests {
    @Test func aConnectionWithNothingInProgressClosesAfterTheIdleTimeout() {
        var keep = ConnectionKeepAlive(idleTimeout: 20, now: 100)
        #expect(keep.firstCheck == .check(at: 120))
        #expect(keep.timerFired(now: 119.9) == .check(at: 120))
        #expect(keep.timerFired(now: 120) == .close)
        // Requests answered from the socket's bytes count as activity, like the router's.
        keep = ConnectionKeepAlive(idleTimeout: 20, now: 100)
        keep.requestRead(now: 110)
        #expect(keep.answerEnded(now: 110.5) == .check(at: 130.5))
        #expect(keep.timerFired(now: 120) == .check(at: 130.5))
        #expect(keep.timerFired(now: 130.5) == .close)
    }

    @Test func aRequestBeingAnsweredIsNotIdleHoweverLong() {
        var keep = ConnectionKeepAlive(idleTimeout: 20, now: 0)
        keep.requestRead(now: 1)
        #expect(keep.timerFired(now: 500) == .none)  // held for a blocking reload, or written
        #expect(keep.answerEnded(now: 501) == .check(at: 521))
        #expect(keep.timerFired(now: 521) == .close)
    }

    @Test func aBodyThatStopsArrivingIsClosedAndOneThatArrivesIsNot() {
        var keep = ConnectionKeepAlive(idleTimeout: 1, now: 0)
        keep.headRead(now: 0.5)
        keep.bodyRead(now: 1.2)
        #expect(keep.timerFired(now: 2.0) == .check(at: 2.2))
        #expect(keep.timerFired(now: 2.2) == .close)
        keep.endRead(now: 2.1)
        #expect(keep.timerFired(now: 9) == .none)
    }

    @Test func pipelinedRequestsKeepItBusyUntilTheLastIsAnswered() {
        var keep = ConnectionKeepAlive(idleTimeout: 5, now: 0)
        keep.requestRead(now: 1)
        keep.requestRead(now: 1)
        #expect(keep.answerEnded(now: 2) == .none)
        #expect(keep.requestsInProgress == 1)
        #expect(keep.answerEnded(now: 3) == .check(at: 8))
        // An answer without a request (cannot happen) never makes the count negative.
        #expect(keep.answerEnded(now: 4) == .check(at: 9))
        #expect(keep.requestsInProgress == 0)
    }

    @Test(arguments: [0.0, -1.0, nil] as [Double?])
    func noTimeoutNeverClosesAnIdleConnection(_ timeout: Double?) {
        var keep = ConnectionKeepAlive(idleTimeout: timeout, now: 0)
        #expect(keep.firstCheck == .none)
        #expect(keep.timerFired(now: 1e9) == .none)
        keep.requestRead(now: 1)
        #expect(keep.answerEnded(now: 2) == .none)
    }

    @Test func aDrainClosesAtOnceOrAfterTheLastAnswer() {
        var idle = ConnectionKeepAlive(idleTimeout: 20, now: 0)
        #expect(idle.drain() == .close)
        var busy = ConnectionKeepAlive(idleTimeout: 20, now: 0)
        busy.requestRead(now: 1)
        busy.requestRead(now: 1)
        #expect(busy.drain() == .none)
        #expect(busy.answerEnded(now: 2) == .none)
        #expect(busy.answerEnded(now: 3) == .close)
    }
}
