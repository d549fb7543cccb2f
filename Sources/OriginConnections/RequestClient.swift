import HTTPTypes
import NIOCore
import OriginPolicy
import SidelineCore

/// Who the request being answered counts against (`TrustedProxies`): the player a trusted edge
/// names in X-Forwarded-For, or the peer. Set for every request that reaches the router
/// (`ViewerAccess.guarding`), read where a per-client rule decides (the held-request bound) and
/// by the request log. The key is worked out only when asked: most requests never need it.
public struct RequestClient: Sendable {
    @TaskLocal public static var current: RequestClient?

    public static let forwardedForHeader = HTTPField.Name("X-Forwarded-For")!

    public let peer: SocketAddress?
    public let forwardedFor: String?
    public let proxies: TrustedProxies
    /// The connection, and the server's table of them: a held request waits on its presence.
    public var connection: ObjectIdentifier?
    public var clients: ClientConnections?

    public init(peer: SocketAddress?, forwardedFor: String?, proxies: TrustedProxies, connection: ObjectIdentifier? = nil, clients: ClientConnections? = nil) {
        self.peer = peer
        self.forwardedFor = forwardedFor
        self.proxies = proxies
        self.connection = connection
        self.clients = clients
    }

    /// Whether the connection's client is still there (nil outside a real connection).
    public var presence: ConnectionPresence? {
        guard let connection, let clients else { return nil }
        return clients.presence(of: connection)
    }

    /// The client's key (`ClientKey`): the forwarded player's behind a trusted edge, else the
    /// peer's; "unknown" for a Unix socket.
    public var key: String {
        Self.key(peer: peer, forwardedFor: forwardedFor, proxies: proxies)
    }

    /// The player a trusted edge named, by its key; nil when the request is the peer's own.
    public var forwardedKey: String? {
        guard !proxies.isEmpty, forwardedFor != nil, case let .forwarded(key) = proxies.client(peer: peer?.addressBytes, forwardedFor: forwardedFor) else { return nil }
        return key
    }

    /// Whether a trusted edge named the player.
    public var isForwarded: Bool { forwardedKey != nil }

    public static func key(peer: SocketAddress?, forwardedFor: String?, proxies: TrustedProxies) -> String {
        if !proxies.isEmpty, forwardedFor != nil, case let .forwarded(key) = proxies.client(peer: peer?.addressBytes, forwardedFor: forwardedFor) {
            return key
        }
        return peer?.clientKey ?? "unknown"
    }
}

extension SocketAddress {
    /// The peer's address as 16 bytes (`IPAddressText`), for the trusted-proxy ranges; nil for
    /// a Unix socket.
    public var addressBytes: [UInt8]? {
        switch self {
        case .v4, .v6: ipAddress.flatMap { IPAddressText.bytes(of: $0) }
        case .unixDomainSocket: nil
        }
    }
}
