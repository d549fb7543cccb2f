import Foundation

/// The URL a person should open, with an address other machines on the LAN can reach when
/// the server listens on all interfaces.
public enum PlaylistURL {
    public static func master(host: String, port: Int, stream: String, tls: Bool = false) -> String {
        base(host: host, port: port, tls: tls) + "/live/\(stream)/master.m3u8"
    }

    /// `http(s)://address:port` of this server as other machines reach it.
    public static func base(host: String, port: Int, tls: Bool) -> String {
        let address = (host == "0.0.0.0" || host == "::") ? (lanAddress() ?? "127.0.0.1") : host
        let shown = address.contains(":") ? "[\(address)]" : address
        return "\(tls ? "https" : "http")://\(shown):\(port)"
    }

    /// The first IPv4 address of an interface that is up and not loopback.
    public static func lanAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                  let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(address, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 {
                return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        return nil
    }
}
