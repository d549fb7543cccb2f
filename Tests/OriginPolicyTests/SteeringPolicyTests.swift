import Foundation
import OriginPolicy
import Testing

/// The peer's health from probes on an injected clock, and the steering manifest each box of a
/// redundant pair answers (issue 35, item 3).
@Suite struct SteeringPolicyTests {
    typealias Probes = [(Double, Bool)]
    /// Probes every half second from `from` to `to` (seconds), all answered or all not.
    static func every(_ from: Double, _ to: Double, answered: Bool = true) -> Probes {
        stride(from: from, through: to, by: 0.5).map { ($0, answered) }
    }

    static let upFor6s: Probes = every(0, 6)
    static let thenTwoFailures: Probes = upFor6s + [(6.5, false), (7, false)]

    /// (probes, asked at, verdict)
    static let rows: [(Probes, Double, PeerHealth.Verdict)] = [
        ([], 10, .unknown),
        ([(0, true)], 0.5, .down),
        (upFor6s, 6, .up),
        (upFor6s + [(6.5, false)], 6.6, .up),
        (thenTwoFailures, 7.1, .down),
        (upFor6s + [(6.5, false), (7, true)], 7.1, .up),
        (upFor6s, 11.1, .down),
        (thenTwoFailures + every(7.5, 10), 10.1, .down),
        (thenTwoFailures + every(7.5, 13.5), 13.6, .up),
    ]

    @Test func aPeerIsDownQuicklyAndUpSlowly() {
        for (probes, now, verdict) in Self.rows {
            var health = PeerHealth()
            for (time, answered) in probes { health.probed(ok: answered, at: time) }
            #expect(health.verdict(at: now) == verdict, "\(probes.count) probes, asked at \(now)")
        }
    }

    /// (role, other, peer, priority)
    @Test(arguments: [
        ("primary", "standby", PeerHealth.Verdict.up, ["primary", "standby"]),
        ("primary", "standby", .down, ["primary", "standby"]),
        ("primary", "standby", .unknown, ["primary", "standby"]),
        ("standby", "primary", .up, ["primary", "standby"]),
        ("standby", "primary", .down, ["standby", "primary"]),
        ("standby", "primary", .unknown, ["standby", "primary"]),
    ])
    func thePrimaryFirstWhileItIsWell(role: String, other: String, peer: PeerHealth.Verdict, priority: [String]) {
        #expect(SteeringPolicy.priority(role: role, otherRole: other, peer: peer) == priority)
    }

    @Test func theManifestIsSmallStableJSON() throws {
        let text = SteeringPolicy.manifest(priority: ["standby", "primary"], timeToLive: SteeringPolicy.timeToLive(segmentDuration: 2))
        #expect(text == #"{"VERSION":1,"TTL":4,"PATHWAY-PRIORITY":["standby","primary"]}"#)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["VERSION"] as? Int == 1 && object["PATHWAY-PRIORITY"] as? [String] == ["standby", "primary"])
        #expect(SteeringPolicy.timeToLive(segmentDuration: 0.2) == 1)
    }
}
