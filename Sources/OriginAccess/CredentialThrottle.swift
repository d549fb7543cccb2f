/// Slows the guessing of credentials, per client address: every credential a client sends that
/// the server refuses (401 or 403: a wrong viewer, analyst, admin or ingest token, an altered
/// or expired signed URL) takes one attempt from the address's allowance; `burst` attempts are
/// there at once and one more comes back every `refillSeconds`. With none left, a request that
/// carries a credential is answered 429 with `Retry-After` (RFC 6585 §4) before it is checked;
/// requests without one (open streams, the page) are not affected, and neither is a client that
/// sends right credentials.
///
/// Pure: the address, the time (seconds of a monotonic clock) in, a verdict out. Bounded: at
/// most `maxAddresses` addresses are remembered; past that the one remembered longest is
/// forgotten first (it gets a new allowance if it comes back), so a client with many addresses
/// costs memory it cannot grow.
public struct CredentialThrottle: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Refused credentials an address may send at once.
        public var burst: Int
        /// Seconds after which one more attempt is allowed again.
        public var refillSeconds: Double
        /// Addresses remembered at most.
        public var maxAddresses: Int

        /// 10 at once, then one every 6 s (10 a minute): a person who mistypes a token a few
        /// times never sees a 429; a script guessing 128-bit tokens gets nowhere.
        public init(burst: Int = 10, refillSeconds: Double = 6, maxAddresses: Int = 10_000) {
            self.burst = max(1, burst)
            self.refillSeconds = refillSeconds.isFinite ? max(0.001, refillSeconds) : 6
            self.maxAddresses = max(1, maxAddresses)
        }
    }

    struct Allowance: Sendable {
        /// Attempts left at `updated` (fractional: it refills continuously).
        var left: Double
        var updated: Double
        /// Where this address's entry is in `order`.
        var generation: Int
    }

    public let limits: Limits
    private var allowances: [String: Allowance] = [:]
    /// Addresses in the order they were first remembered, with the generation they got, for
    /// forgetting the oldest in O(1) amortised; a stale pair (forgotten or re-remembered) is
    /// skipped.
    private var order: [(address: String, generation: Int)] = []
    private var orderStart = 0
    private var nextGeneration = 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Addresses remembered now.
    public var count: Int { allowances.count }

    /// Seconds to wait (at least 1) before `address` may send a credential again; nil: now.
    public func retryAfter(for address: String, now: Double) -> Int? {
        guard let allowance = allowances[address] else { return nil }
        let left = refilled(allowance, now: now)
        guard left < 1 else { return nil }
        let seconds = ((1 - left) * limits.refillSeconds).rounded(.up)
        return seconds.isFinite ? Int(min(max(seconds, 1), 86_400)) : 1
    }

    /// One refused credential from `address` at `now`.
    public mutating func recordFailure(of address: String, now: Double) {
        if var allowance = allowances[address] {
            allowance.left = max(0, refilled(allowance, now: now) - 1)
            allowance.updated = now
            allowances[address] = allowance
            return
        }
        while allowances.count >= limits.maxAddresses { forgetOldest() }
        allowances[address] = Allowance(left: Double(limits.burst - 1), updated: now, generation: nextGeneration)
        order.append((address, nextGeneration))
        nextGeneration &+= 1
    }

    private func refilled(_ allowance: Allowance, now: Double) -> Double {
        let elapsed = max(0, now - allowance.updated)
        return min(Double(limits.burst), allowance.left + elapsed / limits.refillSeconds)
    }

    private mutating func forgetOldest() {
        while orderStart < order.count {
            let (address, generation) = order[orderStart]
            orderStart += 1
            if allowances[address]?.generation == generation {
                allowances[address] = nil
                break
            }
        }
        // Drop the consumed front now and then, so `order` stays near `maxAddresses` long.
        if orderStart > limits.maxAddresses {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }
}
