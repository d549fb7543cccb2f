import Metrics
import OriginPolicy
import Synchronization

/// The server's one `PerClientBook` under a lock, and its counts in `/metrics`:
/// `sideline_held_requests` (held now), `sideline_held_clients` (clients holding now) and
/// `sideline_held_refused_total` (requests refused 429 `too-many-held`).
public final class HeldRequests: Sendable {
    private let book: Mutex<PerClientBook>
    private let heldNow = Gauge(label: "sideline_held_requests")
    private let clientsNow = Gauge(label: "sideline_held_clients")
    private let refusedCount = Counter(label: "sideline_held_refused_total")

    public init(perClient: Int? = PerClientBook.defaultHeldPerClient) {
        book = Mutex(PerClientBook(perClient: perClient))
    }

    public var perClient: Int? { book.withLock { $0.perClient } }

    /// Counts a request of `client` in as held; false when its client is at the bound.
    public func hold(client: String) -> Bool {
        let (admitted, total, clients) = book.withLock { book in (book.hold(client: client), book.total, book.clientsHolding) }
        if !admitted { refusedCount.increment() }
        record(total: total, clients: clients)
        return admitted
    }

    public func release(client: String) {
        let (total, clients) = book.withLock { book in
            book.release(client: client)
            return (book.total, book.clientsHolding)
        }
        record(total: total, clients: clients)
    }

    /// The book now (for tests and the status line).
    public var snapshot: PerClientBook { book.withLock { $0 } }

    private func record(total: Int, clients: Int) {
        heldNow.record(total)
        clientsNow.record(clients)
    }
}
