import HTTPTypes
import NIOCore
import OriginPolicy
import SidelineCore

/// Who the request being answered counts against (`TrustedProxies`): the player a trusted edge
/// names in X-Forwarded-For, or the peer. Set for every request that reaches the router
/// (`ViewerAccess.guarding`), read where a per-client rule decides (the held-request bound) and
/// by the request log. The key is worked out only when asked: most requests never need it.
struct RequestClient: Sendable {
    @TaskLocal static var current: RequestClient?

    static let forwardedForHeader = HTTPField.Name("X-Forwarded-For")!

    let peer: SocketAddress?
    let forwardedFor: String?
    let proxies: TrustedProxies
    /// The connection, and the server's table of them: a held request waits on its presence.
    var connection: ObjectIdentifier?
    var clients: ClientConnections?

    /// Whether the connection's client is still there (nil outside a real connection).
    var presence: ConnectionPresence? {
        guard let connection, let clients else { return nil }
        return clients.presence(of: connection)
    }

    /// The client's key (`ClientKey`): the forwarded player's behind a trusted edge, else the
    /// peer's; "unknown" for a Unix socket.
    var key: String {
        Self.key(peer: peer, forwardedFor: forwardedFor, proxies: proxies)
    }

    /// The player a trusted edge named, by its key; nil when the request is the peer's own.
    var forwardedKey: String? {
        guard !proxies.isEmpty, forwardedFor != nil, case let .forwarded(key) = proxies.client(peer: peer?.addressBytes, forwardedFor: forwardedFor) else { return nil }
        return key
    }

    /// Whether a trusted edge named the player.
    var isForwarded: Bool { forwardedKey != nil }

    static func key(peer: SocketAddress?, forwardedFor: String?, proxies: TrustedProxies) -> String {
        if !proxies.isEmpty, forwardedFor != nil, case let .forwarded(key) = proxies.client(peer: peer?.addressBytes, forwardedFor: forwardedFor) {
            return key
        }
        return peer?.clientKey ?? "unknown"
    }
}

extension SocketAddress {
    /// The peer's address as 16 bytes (`IPAddressText`), for the trusted-proxy ranges; nil for
    /// a Unix socket.
    var addressBytes: [UInt8]? {
        switch self {
        case .v4, .v6: ipAddress.flatMap { IPAddressText.bytes(of: $0) }
        case .unixDomainSocket: nil
        }
    }
}
