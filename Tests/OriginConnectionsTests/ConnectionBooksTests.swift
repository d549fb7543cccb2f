import OriginConnections
import OriginPolicy
import Testing

/// What one connection is doing, as eviction reads it (`ConnectionActivity`), and whether its
/// client is still there for the requests it holds (`ConnectionPresence`).
@Suite struct ConnectionBooksTests {
    @Test func activityIsIdleBusyOrWriting() {
        let activity = ConnectionActivity(now: 10)
        #expect(activity.state == .idle(since: 10))
        activity.requestStarted(now: 12)
        #expect(activity.state == .busy)
        #expect(activity.writeQueued(now: 13), "the first write starts the write timer")
        #expect(!activity.writeQueued(now: 13.5))
        #expect(activity.state == .writing(lastProgress: 13))
        activity.writeDone(now: 14)
        #expect(activity.state == .writing(lastProgress: 14))
        activity.writeDone(now: 15)
        #expect(activity.state == .busy)
        activity.requestAnswered()
        #expect(activity.state == .idle(since: 15))
    }

    @Test func anAnswerWithoutARequestNeverLeavesTheConnectionLookingBusy() {
        let activity = ConnectionActivity(now: 0)
        activity.requestAnswered()
        activity.requestStarted(now: 1)
        activity.requestAnswered()
        #expect(activity.state == .idle(since: 1))
    }

    @Test func aClientThatLeavesEndsEveryWait() async {
        let presence = ConnectionPresence()
        #expect(!presence.isGone)
        async let first: Void = presence.waitUntilGone()
        async let second: Void = presence.waitUntilGone()
        presence.leave()
        _ = await (first, second)
        #expect(presence.isGone)
        await presence.waitUntilGone()  // gone already: returns at once
    }

    @Test func aCancelledWaitEndsWithoutTheClientLeaving() async {
        let presence = ConnectionPresence()
        let wait = Task { await presence.waitUntilGone() }
        wait.cancel()
        await wait.value
        #expect(!presence.isGone)
    }
}
