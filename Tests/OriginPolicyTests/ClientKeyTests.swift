import OriginPolicy
import Testing

/// One device, one key: an IPv6 client's whole /64 counts as one, an IPv4 address as itself.
@Suite struct ClientKeyTests {
    static func bytes(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }

    @Test func everyAddressOfA64IsOneClient() {
        let first = ClientKey.ipv6(Self.bytes([0x2001, 0x0db8, 0x0001, 0x00a0, 0x1111, 0x2222, 0x3333, 0x4444]))
        let second = ClientKey.ipv6(Self.bytes([0x2001, 0x0db8, 0x0001, 0x00a0, 0xdead, 0xbeef, 0, 1]))
        #expect(first == "2001:db8:1:a0::/64")
        #expect(first == second)
    }

    @Test func neighbouring64sAreDifferentClients() {
        #expect(ClientKey.ipv6(Self.bytes([0x2001, 0xdb8, 1, 0xa0, 0, 0, 0, 1])) != ClientKey.ipv6(Self.bytes([0x2001, 0xdb8, 1, 0xa1, 0, 0, 0, 1])))
    }

    @Test func anIPv4MappedAddressIsItsIPv4Address() {
        #expect(ClientKey.ipv6(Self.bytes([0, 0, 0, 0, 0, 0xFFFF, 0xC0A8, 0x0114])) == "192.168.1.20")
        #expect(ClientKey.ipv4("192.168.1.20") == "192.168.1.20")
    }

    @Test func loopbackAndAllZeroPrefixesHaveAKeyToo() {
        #expect(ClientKey.ipv6(Self.bytes([0, 0, 0, 0, 0, 0, 0, 1])) == "0:0:0:0::/64")
    }

    @Test func notSixteenBytesIsNoKey() {
        #expect(ClientKey.ipv6([]) == nil)
        #expect(ClientKey.ipv6([UInt8](repeating: 0, count: 15)) == nil)
        #expect(ClientKey.ipv6([UInt8](repeating: 0, count: 17)) == nil)
    }
}
