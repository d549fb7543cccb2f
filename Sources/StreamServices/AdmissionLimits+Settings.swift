import HLSOrigin
import OriginPolicy
import SidelineConfig

extension AdmissionControl.Limits {
    /// The `server` section's limits, as `serve` and `mirror` both apply them. `writeTimeout`:
    /// false for the mirror, whose answers are read from disk as the upstream's were.
    public init(_ server: ServerSettings, writeTimeout: Bool = true) {
        self.init(maxConnections: server.maxConnections, maxRequestsInFlight: server.maxRequestsInFlight,
                  maxConnectionsPerClient: server.maxConnectionsPerClient,
                  idleTimeout: server.idleTimeout.map { .seconds($0) }, writeTimeout: writeTimeout ? server.writeTimeout.map { .seconds($0) } : nil,
                  maxHeldPerClient: server.maxHeldPerClient, trustedProxies: TrustedProxies(server.trustedProxies))
    }
}
