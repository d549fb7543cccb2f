import SidelineCore
import Testing

@Suite struct BackoffTests {
    @Test func doublesUpToTheMaximumAndResets() {
        var backoff = Backoff(first: 1, maximum: 30)
        #expect(backoff.isDue(at: 0))
        let waits = (0..<7).map { _ in backoff.failed(at: 0) }
        #expect(waits == [1, 2, 4, 8, 16, 30, 30])
        #expect(!backoff.isDue(at: 29.9))
        #expect(backoff.isDue(at: 30))
        backoff.succeeded()
        #expect(backoff.failed(at: 100) == 1)
        #expect(Backoff.inputReconnect.first == 0.5 && Backoff.inputReconnect.maximum == 8)
    }
}
