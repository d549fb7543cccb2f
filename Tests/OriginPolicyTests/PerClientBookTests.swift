import OriginPolicy
import Testing

/// Held requests (blocking reloads, hinted parts) are bounded per client: one client at its
/// bound is refused, every other goes on, and a client's entry goes when it holds nothing.
@Suite struct PerClientBookTests {
    @Test func aClientAtItsBoundIsRefusedAndNobodyElseIs() {
        var book = PerClientBook(perClient: 2)
        let first = book.hold(client: "a"), second = book.hold(client: "a"), third = book.hold(client: "a"), other = book.hold(client: "b")
        #expect(first && second)
        #expect(!third, "the third of one client")
        #expect(other, "another client is not touched")
        #expect(book.total == 3 && book.refused == 1 && book.clientsHolding == 2 && book.mostByOneClient == 2)
        book.release(client: "a")
        let again = book.hold(client: "a")
        #expect(again, "a place freed is a place again")
    }

    @Test func aClientHoldingNothingHasNoEntry() {
        var book = PerClientBook(perClient: 4)
        for client in (0..<100).map(String.init) { _ = book.hold(client: client) }
        for client in (0..<100).map(String.init) { book.release(client: client) }
        #expect(book.byClient.isEmpty && book.total == 0)
        book.release(client: "never-held")
        #expect(book.total == 0, "a release without a hold changes nothing")
    }

    @Test func withoutABoundEveryRequestIsHeld() {
        var book = PerClientBook(perClient: nil)
        var held = 0
        for _ in 0..<10_000 where book.hold(client: "edge") { held += 1 }
        #expect(held == 10_000)
        #expect(book.refused == 0 && book.total == 10_000)
    }

    @Test func theDefaultFitsAPageOfFourAnglesInAFewTabs() {
        // hls.js holds its next playlist and its next part per stream: four angles in four tabs.
        #expect(PerClientBook.defaultHeldPerClient >= 4 * 2 * 4)
    }
}
