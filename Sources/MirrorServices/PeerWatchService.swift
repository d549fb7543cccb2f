import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import OriginPolicy
import OriginRegistry
import OriginState
import ServiceLifecycle

/// The other box of a redundant pair, watched (issue 35): its `/healthz` asked every
/// `interval` seconds, each answer or failure handed to `PeerHealth` on the registry's clock,
/// and the pathways' order (`SteeringPolicy.priority`) given to the registry whenever it
/// changes, for every stream's steering manifest. Wiring only: what counts as down and which
/// pathway comes first are decided in OriginPolicy, with row tests.
public struct PeerWatchService: Service {
    let peerBase: String
    let role: String
    let otherRole: String
    let timeToLive: Int
    let registry: StreamRegistry
    let interval: Double
    let logger: Logger

    public init(peerBase: String, role: String, otherRole: String, segmentDuration: Double, registry: StreamRegistry,
                interval: Double = 0.5, logger: Logger) {
        self.peerBase = peerBase
        self.role = role
        self.otherRole = otherRole
        timeToLive = SteeringPolicy.timeToLive(segmentDuration: segmentDuration)
        self.registry = registry
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .milliseconds(Int64(interval * 1000))))
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 1)
        // A 200 from the box itself, never from an address it redirects to.
        configuration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        await cancelWhenGracefulShutdown { await watch(client) }
        try? await client.shutdown()
    }

    /// Probes until cancelled, saying the pathways' order whenever it changes.
    private func watch(_ client: HTTPClient) async {
        var health = PeerHealth()
        var said: (verdict: PeerHealth.Verdict, priority: [String])?
        // Before the first probe: nothing known of the peer, so this box comes first.
        publish(&said, verdict: health.verdict(at: registry.clock()))
        while !Task.isCancelled {
            let answered = await probe(client)
            // One reading of the clock for the probe and the verdict on it.
            let now = registry.clock()
            health.probed(ok: answered, at: now)
            publish(&said, verdict: health.verdict(at: now))
            try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
        }
    }

    /// Whether the peer answered 200 within one interval.
    private func probe(_ client: HTTPClient) async -> Bool {
        do {
            let response = try await client.execute(HTTPClientRequest(url: peerBase + "/healthz"), deadline: .now() + .milliseconds(Int64(interval * 1000)))
            _ = try? await response.body.collect(upTo: 4096)
            return response.status == .ok
        } catch {
            return false
        }
    }

    private func publish(_ said: inout (verdict: PeerHealth.Verdict, priority: [String])?, verdict: PeerHealth.Verdict) {
        let priority = SteeringPolicy.priority(role: role, otherRole: otherRole, peer: verdict)
        guard said?.priority != priority || said?.verdict != verdict else { return }
        if let before = said?.verdict, before != verdict {
            let level: Logger.Level = verdict == .up ? .notice : .warning
            logger.log(level: level, "the other box of the pair is \(verdict.rawValue)", metadata: ["peer": "\(peerBase)", "pathway-priority": "\(priority.joined(separator: ","))"])
        }
        if said?.priority != priority { registry.apply(.steering(priority: priority, timeToLive: timeToLive)) }
        said = (verdict, priority)
    }
}
