import OriginAccess
import Testing

/// Failed credentials per address: a burst, then 429 with Retry-After, by an injected clock;
/// bounded memory for many addresses.
@Suite struct CredentialThrottleTests {
    @Test func aBurstThenOneAttemptPerRefill() {
        var throttle = CredentialThrottle(limits: .init(burst: 3, refillSeconds: 10))
        var now = 1000.0
        for _ in 0..<3 {
            #expect(throttle.retryAfter(for: "10.0.0.9", now: now) == nil)
            throttle.recordFailure(of: "10.0.0.9", now: now)
        }
        #expect(throttle.retryAfter(for: "10.0.0.9", now: now) == 10)
        // Another address is not affected.
        #expect(throttle.retryAfter(for: "10.0.0.10", now: now) == nil)
        now += 4
        #expect(throttle.retryAfter(for: "10.0.0.9", now: now) == 6)
        now += 6
        #expect(throttle.retryAfter(for: "10.0.0.9", now: now) == nil)
        throttle.recordFailure(of: "10.0.0.9", now: now)
        #expect(throttle.retryAfter(for: "10.0.0.9", now: now) == 10)
        // After burst × refill the whole allowance is back.
        now += 30
        for _ in 0..<3 {
            #expect(throttle.retryAfter(for: "10.0.0.9", now: now) == nil)
            throttle.recordFailure(of: "10.0.0.9", now: now)
        }
        #expect(throttle.retryAfter(for: "10.0.0.9", now: now) != nil)
    }

    @Test func aClockThatGoesBackDoesNotGiveAttempts() {
        var throttle = CredentialThrottle(limits: .init(burst: 1, refillSeconds: 10))
        throttle.recordFailure(of: "a", now: 100)
        #expect(throttle.retryAfter(for: "a", now: 50) == 10)
        #expect(throttle.retryAfter(for: "a", now: .infinity) == nil)
        #expect(throttle.retryAfter(for: "a", now: .nan) == 10)
    }

    @Test func memoryIsBoundedAndTheOldestIsForgottenFirst() {
        var throttle = CredentialThrottle(limits: .init(burst: 1, refillSeconds: 60, maxAddresses: 100))
        for index in 0..<10_000 { throttle.recordFailure(of: "198.51.100.\(index)", now: 0) }
        #expect(throttle.count == 100)
        #expect(throttle.retryAfter(for: "198.51.100.9999", now: 0) == 60)
        #expect(throttle.retryAfter(for: "198.51.100.0", now: 0) == nil)
        // An address failing again is remembered from its first failure on, not moved.
        var small = CredentialThrottle(limits: .init(burst: 5, refillSeconds: 60, maxAddresses: 2))
        small.recordFailure(of: "a", now: 0)
        small.recordFailure(of: "b", now: 0)
        small.recordFailure(of: "a", now: 0)
        small.recordFailure(of: "c", now: 0)
        #expect(small.count == 2)
    }
}
