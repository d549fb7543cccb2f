import NIOCore
import OriginPolicy
import SidelineCore
import Synchronization

/// Every open connection with its client address and what it is doing, so one device cannot
/// take the whole connection limit (1,100 idle connections from one address used to lock
/// every player out) and a few devices that stop reading cannot either: at a cap, the least
/// useful connection (`ConnectionEviction.victim`: stalled writers, then idle ones) is closed
/// to make room for the new client.
public final class ClientConnections: Sendable {
    /// Connections one address may hold open; nil for no cap.
    public let cap: Int?
    /// Connections the whole server holds before requests are answered 503; nil for no limit.
    public let maxConnections: Int?
    /// A connection whose answer's writes make no progress for this long is closed; nil: never.
    public let writeTimeout: Duration?
    public let clock: @Sendable () -> Double
    /// Edges (`server.trusted_proxies`): their connections carry many players, so they are
    /// never held to the per-client cap and never closed to make room for another client.
    public let trustedProxies: TrustedProxies

    public struct Entry {
        let address: String
        let activity: ConnectionActivity
        let channel: any Channel
        /// From a trusted proxy: never a victim.
        var trusted = false
        /// Whether its client is still there, for the requests it holds.
        var presence: ConnectionPresence?
    }

    private struct Table {
        var entries: [UInt64: Entry] = [:]
        var perAddress: [String: Int] = [:]
        var nextID: UInt64 = 0
        /// Each connection's entry by its channel, for a request that holds (`presence(of:)`).
        var byChannel: [ObjectIdentifier: UInt64] = [:]

        mutating func remove(_ id: UInt64) -> Entry? {
            guard let entry = entries.removeValue(forKey: id) else { return nil }
            byChannel.removeValue(forKey: ObjectIdentifier(entry.channel))
            let left = perAddress[entry.address, default: 1] - 1
            perAddress[entry.address] = left > 0 ? left : nil
            return entry
        }

        func victims(now: Double, count: Int, from address: String? = nil) -> [UInt64] {
            let candidates = entries.compactMap { id, entry -> ConnectionEviction.Connection? in
                guard !entry.trusted, address == nil || entry.address == address else { return nil }
                return .init(id: id, address: entry.address, activity: entry.activity.state)
            }
            return ConnectionEviction.victims(among: candidates, now: now, count: count)
        }
    }

    private let table = Mutex(Table())
    /// The table's size, read by every request (`AdmissionControl`) without the lock. An
    /// evicted connection leaves it at once, before its close completes, so the client it made
    /// room for is not refused while that close is under way.
    private let open = Atomic<Int>(0)
    private let evictedTotal = Atomic<Int>(0)

    public init(cap: Int?, maxConnections: Int? = nil, writeTimeout: Duration? = nil, trustedProxies: TrustedProxies = TrustedProxies(),
                clock: @escaping @Sendable () -> Double = MonotonicClock.seconds) {
        self.cap = cap
        self.maxConnections = maxConnections
        self.writeTimeout = writeTimeout
        self.trustedProxies = trustedProxies
        self.clock = clock
    }

    /// A connection counted in: its id, and whether it made the server's count pass
    /// `maxConnections` (nothing could be freed for it), so its requests are answered 503.
    public struct Admitted {
        let id: UInt64
        let overCap: Bool
    }

    /// Counts a new connection in, closing a less useful one when a cap is reached; nil (and not
    /// counted) when its address is at its cap with nothing of its own to give up. At the
    /// server's cap with nothing to give up, it is counted in and `AdmissionControl` answers 503.
    /// `trusted`: a trusted proxy's connection, which no per-client cap holds back.
    public func admit(_ address: String, trusted: Bool = false, activity: ConnectionActivity, presence: ConnectionPresence? = nil, channel: any Channel) -> Admitted? {
        var victims: [any Channel] = []
        let admitted: Admitted? = table.withLock { table in
            let now = clock()
            if !trusted, let cap, table.perAddress[address, default: 0] >= cap {
                guard let victim = table.victims(now: now, count: 1, from: address).first, let entry = table.remove(victim) else { return nil }
                victims.append(entry.channel)
            }
            // As many as it takes to bring the server under its cap (connections over it were
            // counted in and answered 503 when nothing could be freed for them).
            if let maxConnections, table.entries.count >= maxConnections {
                for victim in table.victims(now: now, count: table.entries.count - maxConnections + 1) {
                    if let entry = table.remove(victim) { victims.append(entry.channel) }
                }
            }
            let id = table.nextID
            table.nextID &+= 1
            table.entries[id] = Entry(address: address, activity: activity, channel: channel, trusted: trusted, presence: presence)
            table.byChannel[ObjectIdentifier(channel)] = id
            table.perAddress[address, default: 0] += 1
            open.store(table.entries.count, ordering: .relaxed)
            return Admitted(id: id, overCap: maxConnections.map { table.entries.count > $0 } ?? false)
        }
        if admitted == nil { open.store(table.withLock { $0.entries.count }, ordering: .relaxed) }
        for victim in victims {
            evictedTotal.add(1, ordering: .relaxed)
            victim.close(promise: nil)
        }
        return admitted
    }

    public func release(_ id: UInt64) {
        let count = table.withLock { table in
            _ = table.remove(id)
            return table.entries.count
        }
        open.store(count, ordering: .relaxed)
    }

    /// The presence of the connection `channel` is, while it is counted in.
    public func presence(of channel: ObjectIdentifier) -> ConnectionPresence? {
        table.withLock { table in table.byChannel[channel].flatMap { table.entries[$0]?.presence } }
    }

    public func openConnections(from address: String) -> Int { table.withLock { $0.perAddress[address] ?? 0 } }
    /// Connections closed to make room for new clients since start (for metrics and tests).
    public var evictions: Int { evictedTotal.load(ordering: .relaxed) }
    /// Connections counted in and not closed or evicted: what `max_connections` is compared with.
    public var openConnections: Int { open.load(ordering: .relaxed) }
}
