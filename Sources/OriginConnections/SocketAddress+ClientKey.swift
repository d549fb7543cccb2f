import NIOCore
import OriginPolicy
#if canImport(Glibc)
import Glibc
#endif

extension SocketAddress {
    /// Who this peer counts against (`ClientKey`): its IPv4 address, or its IPv6 /64. Nil for
    /// a Unix socket.
    public var clientKey: String? {
        switch self {
        case .v4:
            return ipAddress.map(ClientKey.ipv4)
        case .v6:
            // The kernel's own text of the address, back to its 16 bytes.
            guard let text = ipAddress else { return nil }
            var bytes = [UInt8](repeating: 0, count: 16)
            guard inet_pton(AF_INET6, text, &bytes) == 1 else { return text }
            return ClientKey.ipv6(bytes)
        case .unixDomainSocket:
            return nil
        }
    }
}
