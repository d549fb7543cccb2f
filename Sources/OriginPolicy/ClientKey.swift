/// Who a connection counts against, for the per-client connection cap
/// (`server.max_connections_per_client`) and the credential throttle: an IPv4 address itself,
/// and an IPv6 address's /64. One phone on IPv6 holds a whole /64 (SLAAC and privacy addresses)
/// and can pick any of its 2^64 addresses for each connection, so counting single IPv6
/// addresses would give one device unlimited places and unlimited guesses. An IPv4-mapped
/// IPv6 address (`::ffff:a.b.c.d`, a dual-stack socket's view of an IPv4 client) counts as its
/// IPv4 address.
public enum ClientKey {
    /// The key of an IPv4 client: its dotted address, as given.
    public static func ipv4(_ address: String) -> String { address }

    /// The key of an IPv6 client from its 16 address bytes; nil when there are not 16.
    public static func ipv6(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 16 else { return nil }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        // The first four groups, as RFC 5952 writes them (lower case, no leading zeros; the
        // groups of a /64 are never shortened with "::" here, so every key has one spelling).
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
