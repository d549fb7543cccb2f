/// How many of something each client has at the origin right now, within a bound per client:
/// a value with one way in, as `OriginState` (`hold` and `release`), which the server keeps
/// under a lock. Two books:
///
/// - **Held requests** (`server.max_held_per_client`): blocking reloads (`_HLS_msn`) and hinted
///   parts, each a suspended request that costs the server memory and a place on the wake
///   list until its playlist or part is published, for up to three target durations. The
///   bound is the client's, not the server's: a held request does not count against
///   `server.max_requests_in_flight`, so a crowd at the live edge, each holding its next
///   playlist and its next part, never fills the admission every other request needs, and one
///   client that asks for more than its share is refused (429 `too-many-held`) without touching
///   anybody else's.
/// - **Requests in flight of a player behind a trusted edge** (`server.max_connections_per_client`):
///   such a player has no connection of its own at the origin (the edge's carry every player's
///   requests), so its share of the edge's is what the cap bounds: an HTTP/1.1 edge opens one
///   origin connection per request in flight, and one player asking for many objects at once
///   would otherwise take the edge's connections and the origin's admission from the others
///   (429 `too-many-requests`).
///
/// A client is an address, an IPv6 /64, or the player a trusted edge names (`TrustedProxies`).
/// Why per address and not per player and object: an address can be many players (a NAT, a
/// venue's guest Wi-Fi, an edge whose players are not named), all waiting on the same next
/// part, so one hold per address and object would refuse real players. A player holds at most
/// one request per HTTP/1.1 connection, its connections are capped, and a request is held
/// once: when its time is up it is answered with what is current, never held again; when its
/// player goes away it ends.
public struct PerClientBook: Sendable, Equatable {
    /// Requests one client may have held at once; nil for no bound.
    public let perClient: Int?
    /// Held now, by client (a client with none held has no entry: the table is as large as
    /// the set of clients holding, never larger).
    public private(set) var byClient: [String: Int] = [:]
    /// Held now, in all.
    public private(set) var total = 0
    /// Requests refused for their client's bound since start.
    public private(set) var refused = 0

    /// hls.js at the live edge holds two (its next playlist and its next part) per stream it
    /// plays; the page's angle grid plays four angles; a few tabs and a NAT of several devices
    /// fit in 32.
    public static let defaultHeldPerClient = 32

    public init(perClient: Int? = Self.defaultHeldPerClient) {
        self.perClient = perClient
    }

    /// Counts a request of `client` in as held: true when it may be held, false when the
    /// client already holds its bound (the request is then refused, and counted).
    public mutating func hold(client: String) -> Bool {
        let held = byClient[client, default: 0]
        if let perClient, held >= perClient {
            refused &+= 1
            return false
        }
        byClient[client] = held + 1
        total += 1
        return true
    }

    /// A request `hold` counted in has been answered, or its player went away.
    public mutating func release(client: String) {
        guard let held = byClient[client] else { return }
        byClient[client] = held > 1 ? held - 1 : nil
        total -= 1
    }

    /// Clients holding at least one request now.
    public var clientsHolding: Int { byClient.count }

    /// The most any one client holds now (0 when none).
    public var mostByOneClient: Int { byClient.values.max() ?? 0 }
}
