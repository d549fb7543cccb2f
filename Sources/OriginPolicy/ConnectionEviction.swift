/// Which open connection the server closes so a new client can be served, and when a
/// connection that does not read its answer is closed. Pure: plain values and readings of a
/// monotonic clock in seconds; HLSOrigin's channel handlers gather the values and carry out
/// the verdict.
///
/// Why: a connection that never reads a large answer used to be held for ever (the idle timer
/// is off while an answer is written), so 17 addresses at the per-address cap of 64 took all
/// 1,024 connections and every new player got 503.
public enum ConnectionEviction {
    /// What one open connection is doing, as far as eviction cares.
    public enum Activity: Sendable, Equatable {
        /// Bytes of an answer wait to go out; `lastProgress`: when the last write completed (or,
        /// with none completed yet, when the first was queued).
        case writing(lastProgress: Double)
        /// No request in progress and nothing to write (a keep-alive connection between
        /// requests, or one that has not sent its first request), since `since`.
        case idle(since: Double)
        /// A request is being read or answered without bytes waiting: an upload, a route at
        /// work, a blocking playlist reload. Never evicted: it is doing what it is for.
        case busy
    }

    public struct Connection: Sendable, Equatable {
        public var id: UInt64
        public var address: String
        public var activity: Activity
        public init(id: UInt64, address: String, activity: Activity) {
            self.id = id
            self.address = address
            self.activity = activity
        }
    }

    /// A connection idle this long may be taken; a connection a moment old (whose first request
    /// is on its way) is not taken.
    public static let graceSeconds = 1.0

    /// A writer with no progress for this long counts as stalled. Progress is seen when a piece
    /// of an answer completes (`ClientConnectionLimiter.pieceBytes`, 128 KiB), and the kernel
    /// takes more of an answer only once its unsent bytes fall below half their bound
    /// (`OriginHTTP1Channel.unsentBytes`), so progress should come in steps of about 128-192 KiB:
    /// a player reading at about 1 Mbit/s or more would show progress within it. That is
    /// worked out from the kernel's rule (the review of 2026-11-29), not measured on a slow
    /// link. One that stopped reading is taken a moment later than an idle connection would be.
    public static let stalledWriterSeconds = 1.5

    /// The write timeout: true when `activity` is writing and no write has completed for
    /// `timeout` seconds. Based on progress, not on the answer's total time, so a slow player
    /// that keeps reading a large segment is never cut.
    public static func writeTimedOut(_ activity: Activity, now: Double, timeout: Double) -> Bool {
        guard case let .writing(lastProgress) = activity else { return false }
        return now - lastProgress >= timeout
    }

    /// The connection to close so one more client can be served, or nil (the new client is then
    /// refused as before). The least useful first: stalled writers, then idle connections; within
    /// each, the address holding the most connections, then the one waiting longest. A busy
    /// connection, a writer that made progress within `stalled` and a connection idle for less
    /// than `grace` are never chosen.
    public static func victim(among connections: [Connection], now: Double, grace: Double = graceSeconds, stalled: Double = stalledWriterSeconds) -> UInt64? {
        victims(among: connections, now: now, count: 1, grace: grace, stalled: stalled).first
    }

    /// Up to `count` connections to close, least useful first (as `victim`): a server far over
    /// its cap frees room for a new client in one go.
    public static func victims(among connections: [Connection], now: Double, count: Int, grace: Double = graceSeconds, stalled: Double = stalledWriterSeconds) -> [UInt64] {
        guard count > 0 else { return [] }
        var held: [String: Int] = [:]
        for connection in connections { held[connection.address, default: 0] += 1 }
        let ranked = connections.compactMap { connection -> (id: UInt64, kind: Int, held: Int, waited: Double)? in
            let held = held[connection.address] ?? 0
            switch connection.activity {
            case let .writing(lastProgress) where now - lastProgress >= stalled: return (connection.id, 0, held, now - lastProgress)
            case let .idle(since) where now - since >= grace: return (connection.id, 1, held, now - since)
            default: return nil
            }
        }
        // Stable for equal ranks: the order the connections were given in.
        let sorted = ranked.enumerated().sorted { a, b in
            (a.element.kind, -a.element.held, -a.element.waited, a.offset) < (b.element.kind, -b.element.held, -b.element.waited, b.offset)
        }
        return sorted.prefix(count).map(\.element.id)
    }
}
