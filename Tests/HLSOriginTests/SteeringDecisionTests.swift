import HLSOrigin
import NIOCore
import OriginPolicy
import OriginRegistry
import OriginState
import Testing

/// `/live/<stream>/steering.json` (issue 35): the pathways' order this box of a pair gives,
/// judged as the stream's master (410 once removed, 404 for a stream it does not have), and
/// 404 on a box with no pair.
@Suite struct SteeringDecisionTests {
    func registry(steering: [String]? = nil, phase: StreamRegistry.Phase? = nil) -> StreamRegistry {
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        if let steering { registry.apply(.steering(priority: steering, timeToLive: 4)) }
        if let phase { registry.apply(.phase(stream: "main", phase)) }
        return registry
    }

    func status(_ decision: OriginDecision) -> Int {
        if case let .refuse(refusal) = decision { return refusal.status }
        return 200
    }

    @Test func thePairsOrderAsJSON() {
        let decision = OriginDecision.decide(OriginPath.parse("/live/main/steering.json"), registry: registry(steering: ["standby", "primary"]))
        guard case let .steering(manifest, timeToLive) = decision else {
            Issue.record("not a steering manifest: \(decision)")
            return
        }
        #expect(String(buffer: manifest) == #"{"VERSION":1,"TTL":4,"PATHWAY-PRIORITY":["standby","primary"]}"#)
        #expect(timeToLive == 4)
    }

    @Test func theOrderFollowsTheLastWord() {
        let registry = registry(steering: ["primary", "standby"])
        registry.apply(.steering(priority: ["standby", "primary"], timeToLive: 4))
        guard case let .steering(manifest, _) = OriginDecision.decide(OriginPath.parse("/live/main/steering.json"), registry: registry) else {
            Issue.record("no manifest")
            return
        }
        #expect(String(buffer: manifest).contains(#"["standby","primary"]"#))
    }

    @Test(arguments: [
        ("/live/main/steering.json", nil as [String]?, nil as StreamRegistry.Phase?, 404),
        ("/live/other/steering.json", ["primary", "standby"], nil, 404),
        ("/live/main/steering.json", ["primary", "standby"], .removed, 410),
        ("/live/main/720p/steering.json", ["primary", "standby"], nil, 404),
    ])
    func refusals(path: String, steering: [String]?, phase: StreamRegistry.Phase?, expected: Int) {
        #expect(status(OriginDecision.decide(OriginPath.parse(path), registry: registry(steering: steering, phase: phase))) == expected, "\(path)")
    }

    @Test func aRecordingHasNoPathways() {
        #expect(status(VODDecision.decide(path: "/vod/main/steering.json", query: nil, registry: registry(steering: ["primary", "standby"]))) == 404)
    }
}
