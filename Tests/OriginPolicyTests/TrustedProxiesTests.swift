import OriginPolicy
import SidelineCore
import Testing

/// Who a request counts against behind an edge: the player a trusted proxy appended, never
/// what a player wrote itself, and never anybody a peer that is not trusted names.
@Suite struct TrustedProxiesTests {
    static let edge = IPAddressText.bytes(of: "10.0.0.5")!
    static let proxies = TrustedProxies([IPAddressRange("10.0.0.5")!, IPAddressRange("10.0.1.0/24")!])

    // (forwarded-for, client): read from the right, the first address not a trusted proxy.
    static let rows: [(String, TrustedProxies.Client)] = [
        ("192.0.2.7", .forwarded(key: "192.0.2.7")),
        (" 192.0.2.7 ", .forwarded(key: "192.0.2.7")),
        ("203.0.113.9, 192.0.2.7", .forwarded(key: "192.0.2.7")),
        ("192.0.2.7, 10.0.1.20", .forwarded(key: "192.0.2.7")),
        ("192.0.2.7:51234", .forwarded(key: "192.0.2.7")),
        ("[2001:db8:1:2::77]:443", .forwarded(key: "2001:db8:1:2::/64")),
        ("2001:db8:1:2::77", .forwarded(key: "2001:db8:1:2::/64")),
        ("::ffff:192.0.2.7", .forwarded(key: "192.0.2.7")),
        // Whatever a player wrote on the left is never read.
        ("evil, 192.0.2.7", .forwarded(key: "192.0.2.7")),
        ("1.1.1.1, 2.2.2.2, 192.0.2.7", .forwarded(key: "192.0.2.7")),
        // Nothing believable: the edge itself.
        ("unknown", .peer),
        ("", .peer),
        ("10.0.1.20", .peer),
        ("192.0.2.7, garbage", .peer),
        ("10.0.0.5, 10.0.1.20", .peer),
    ]

    @Test(arguments: rows)
    func aTrustedEdgeNamesThePlayer(header: String, client: TrustedProxies.Client) {
        #expect(Self.proxies.client(peer: Self.edge, forwardedFor: header) == client)
    }

    @Test func aPeerThatIsNotTrustedIsItselfWhateverItSays() {
        let stranger = IPAddressText.bytes(of: "192.0.2.50")!
        #expect(Self.proxies.client(peer: stranger, forwardedFor: "203.0.113.1") == .peer)
        #expect(TrustedProxies().client(peer: Self.edge, forwardedFor: "203.0.113.1") == .peer, "no proxies configured: the header is ignored")
        #expect(Self.proxies.client(peer: nil, forwardedFor: "203.0.113.1") == .peer, "a Unix socket")
        #expect(Self.proxies.client(peer: Self.edge, forwardedFor: nil) == .peer, "an edge's own request (its health probe)")
    }

    @Test func aLongChainIsReadOnlyAsFarAsTheBound() {
        let chain = Array(repeating: "10.0.1.1", count: TrustedProxies.maxHops + 4).joined(separator: ", ")
        #expect(Self.proxies.client(peer: Self.edge, forwardedFor: "192.0.2.7, " + chain) == .peer)
        let huge = String(repeating: "9", count: 100_000) + ", 192.0.2.7"
        #expect(Self.proxies.client(peer: Self.edge, forwardedFor: huge) == .forwarded(key: "192.0.2.7"), "the rightmost entries decide, whatever is left of them")
        #expect(Self.proxies.client(peer: Self.edge, forwardedFor: String(repeating: ",", count: 10_000)) == .peer)
    }
}
