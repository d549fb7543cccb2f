import Metrics
import OriginPolicy
import Synchronization

/// The requests in flight of each player behind a trusted edge (`PerClientBook`, bound by
/// `server.max_connections_per_client`), and `sideline_forwarded_refused_total`: requests
/// refused 429 `too-many-requests`.
public final class ForwardedRequests: Sendable {
    private let book: Mutex<PerClientBook>
    private let refusedCount = Counter(label: "sideline_forwarded_refused_total")

    public init(perPlayer: Int?) {
        book = Mutex(PerClientBook(perClient: perPlayer))
    }

    public var perPlayer: Int? { book.withLock { $0.perClient } }

    /// Counts a request of `player` in; false when the player is at its bound.
    public func enter(player: String) -> Bool {
        let admitted = book.withLock { $0.hold(client: player) }
        if !admitted { refusedCount.increment() }
        return admitted
    }

    public func leave(player: String) {
        book.withLock { $0.release(client: player) }
    }

    /// The book now (for tests).
    public var snapshot: PerClientBook { book.withLock { $0 } }
}
