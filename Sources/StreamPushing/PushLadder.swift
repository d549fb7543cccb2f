/// Which rungs of the ladder `sideline push` sends, and at which video bit rate, for what the
/// uplink carries (`UploadBitRate`). Pure.
///
/// The rule, best rung first:
/// - While the link carries the whole ladder (every rung's configured video rate and its own
///   copy of the audio), every rung is sent as configured: never above it, since the server's
///   master advertises BANDWIDTH from the same ladder.
/// - Below that, the rungs share what is left after their audio in proportion to their
///   configured rates, so they scale down together, as long as each keeps at least half of its
///   configured rate (`keptAbove`).
/// - When they cannot, the lowest rung is dropped (its bits and its audio go to the others) and
///   the share is made again; the best rung is never dropped, and never goes below `minimum`.
///
/// Why the lowest first: the link limits what any rung can show, and the analysts the venue
/// server serves on its LAN want the best picture the uplink allows. A rung squeezed below half
/// its rate looks worse than the next rung down does at its own rate, so it would be wasted
/// bits; the lower rungs exist for weak Wi-Fi at the venue, and the server fills a rung the
/// pusher stops sending with its nearest sibling's segments (`on_variant_failure`, default
/// `sibling`), so a player on it keeps playing.
public struct PushLadder: Sendable, Equatable {
    public struct Rung: Sendable, Equatable {
        public var name: String
        /// The configured video bit rate.
        public var bitRate: Int
        public init(name: String, bitRate: Int) {
            self.name = name
            self.bitRate = bitRate
        }
    }

    /// Best first, as the config lists them.
    public var rungs: [Rung]
    /// The audio every rung carries a copy of, bits per second.
    public var audioBitRate: Int
    /// The best rung's lowest video rate, however slow the link (`push.min_bitrate`).
    public var minimum: Int
    /// The most video the rungs may use together (`push.max_bitrate`).
    public var maximum: Int
    /// A rung scaled below this share of its configured rate is dropped instead.
    public static let keptAbove = 0.5

    public init(rungs: [Rung], audioBitRate: Int, minimum: Int, maximum: Int) {
        precondition(!rungs.isEmpty && minimum > 0 && maximum >= minimum)
        self.rungs = rungs
        self.audioBitRate = audioBitRate
        self.minimum = minimum
        self.maximum = maximum
    }

    /// What is sent: each rung sent with its video bit rate, best first; the rest dropped.
    public struct Plan: Sendable, Equatable {
        public var sent: [Rung]
        public var dropped: [String]
        public init(sent: [Rung], dropped: [String]) {
            self.sent = sent
            self.dropped = dropped
        }
        public var videoBitRate: Int { sent.reduce(0) { $0 + $1.bitRate } }
        public func bitRate(of name: String) -> Int? { sent.first { $0.name == name }?.bitRate }
    }

    /// Everything as configured (a link not measured yet, or too fast to time), within `maximum`.
    public var full: Plan { plan(link: nil) }

    /// The plan for a link that carries `link` bits per second for the next segments (nil: not
    /// what limits).
    public func plan(link: Int?) -> Plan {
        for count in stride(from: rungs.count, through: 1, by: -1) {
            let kept = Array(rungs.prefix(count))
            let configured = kept.reduce(0) { $0 + $1.bitRate }
            let budget = min(maximum, link.map { $0 - count * audioBitRate } ?? Int.max)
            let scale = min(1, Double(budget) / Double(configured))
            guard scale >= Self.keptAbove || count == 1 else { continue }
            let dropped = rungs.dropFirst(count).map(\.name)
            if count == 1 {
                let top = kept[0]
                return Plan(sent: [Rung(name: top.name, bitRate: max(minimum, min(top.bitRate, budget)))], dropped: dropped)
            }
            return Plan(sent: kept.map { Rung(name: $0.name, bitRate: Int((Double($0.bitRate) * scale).rounded(.down))) }, dropped: dropped)
        }
        preconditionFailure("the best rung is always sent")
    }
}
