import NIOCore
import OriginConnections
import OriginPolicy
import SidelineCore
import Testing

/// Whom a request counts against: the peer, or the player a trusted edge names in
/// X-Forwarded-For, and never a player an untrusted peer claims to be.
@Suite struct RequestClientTests {
    static let edge = TrustedProxies([IPAddressRange("10.0.0.5")!])

    func client(_ peer: String, forwardedFor: String?, proxies: TrustedProxies = edge) throws -> RequestClient {
        RequestClient(peer: try SocketAddress(ipAddress: peer, port: 40_000), forwardedFor: forwardedFor, proxies: proxies)
    }

    @Test func aTrustedEdgeNamesThePlayer() throws {
        let request = try client("10.0.0.5", forwardedFor: "192.168.1.20")
        #expect(request.key == "192.168.1.20")
        #expect(request.forwardedKey == "192.168.1.20")
        #expect(request.isForwarded)
    }

    @Test func anUntrustedPeerCountsAgainstItselfWhateverItClaims() throws {
        let request = try client("192.168.1.77", forwardedFor: "192.168.1.20")
        #expect(request.key == "192.168.1.77")
        #expect(request.forwardedKey == nil && !request.isForwarded)
        // No proxies configured: the header is not even read.
        #expect(try client("10.0.0.5", forwardedFor: "192.168.1.20", proxies: TrustedProxies()).key == "10.0.0.5")
    }

    @Test func theEdgeItselfCountsWhenItNamesNobody() throws {
        #expect(try client("10.0.0.5", forwardedFor: nil).key == "10.0.0.5")
        #expect(try client("10.0.0.5", forwardedFor: nil).forwardedKey == nil)
    }

    @Test func anIPv6PeerAndAUnixSocket() throws {
        let v6 = try client("fd00:1:2:3:4:5:6:7", forwardedFor: nil)
        #expect(v6.key == ClientKey.ipv6(IPAddressText.bytes(of: "fd00:1:2:3:4:5:6:7")!))
        #expect(v6.peer?.addressBytes?.count == 16)
        let unix = RequestClient(peer: try SocketAddress(unixDomainSocketPath: "/tmp/sideline-test.sock"), forwardedFor: nil, proxies: Self.edge)
        #expect(unix.key == "unknown")
        #expect(unix.peer?.addressBytes == nil)
    }
}
