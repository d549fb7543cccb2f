import SidelineCore
import Testing

/// The config's trusted-proxy ranges and the addresses a forwarded-for header names: one
/// reading of an address, whatever its spelling, and a range that holds exactly its addresses.
@Suite struct IPAddressRangeTests {
    static func mapped(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> [UInt8] { [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, a, b, c, d] }

    static let readings: [(String, [UInt8])] = [
        ("10.0.0.5", mapped(10, 0, 0, 5)),
        ("::ffff:10.0.0.5", mapped(10, 0, 0, 5)),
        ("::1", [UInt8](repeating: 0, count: 15) + [1]),
        ("::", [UInt8](repeating: 0, count: 16)),
        ("2001:db8::1", [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]),
        ("2001:DB8:0:0:0:0:0:1", [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]),
        ("fe80::1:2", [0xfe, 0x80] + [UInt8](repeating: 0, count: 10) + [0, 1, 0, 2]),
    ]

    @Test(arguments: readings)
    func anAddressReadsAsItsSixteenBytes(text: String, bytes: [UInt8]) {
        #expect(IPAddressText.bytes(of: text) == bytes)
    }

    @Test(arguments: ["", "10.0.0", "10.0.0.256", "10.0.0.05", "10..0.1", "+1.2.3.4", "1.2.3.4.5", "2001:db8::1::2", ":::", "12345::", "2001:db8:+1::",
                      "g::1", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "::ffff:10.0.0.300", "localhost", String(repeating: "1", count: 60)])
    func anythingElseIsNoAddress(text: String) {
        #expect(IPAddressText.bytes(of: text) == nil)
    }

    @Test func anIPv4RangeHoldsItsAddressesInEitherSpelling() throws {
        let range = try #require(IPAddressRange("10.0.0.0/24"))
        #expect(range.contains(Self.mapped(10, 0, 0, 0)) && range.contains(Self.mapped(10, 0, 0, 255)))
        let mappedSpelling = try #require(IPAddressText.bytes(of: "::ffff:10.0.0.9"))
        #expect(range.contains(mappedSpelling))
        #expect(!range.contains(Self.mapped(10, 0, 1, 0)) && !range.contains(Self.mapped(11, 0, 0, 1)))
        #expect(range.prefixLength == 120 && range.description == "10.0.0.0/24")
    }

    @Test func aSingleAddressIsARangeOfOne() throws {
        let one = try #require(IPAddressRange("127.0.0.1"))
        #expect(one.contains(Self.mapped(127, 0, 0, 1)) && !one.contains(Self.mapped(127, 0, 0, 2)))
    }

    @Test func anIPv6RangeCountsBitsNotGroups() throws {
        let range = try #require(IPAddressRange("fd00::/7"))
        let low = try #require(IPAddressText.bytes(of: "fc00::1")), high = try #require(IPAddressText.bytes(of: "fdff::1"))
        let outside = try #require(IPAddressText.bytes(of: "fe00::1")), documentation = try #require(IPAddressText.bytes(of: "2001:db8::1"))
        #expect(range.contains(low) && range.contains(high))
        #expect(!range.contains(outside))
        #expect(!range.contains(Self.mapped(10, 0, 0, 1)), "an IPv4 address is not in an IPv6 range that does not cover ::ffff:0:0/96")
        let all = try #require(IPAddressRange("0.0.0.0/0"))
        #expect(all.contains(Self.mapped(192, 0, 2, 1)) && !all.contains(documentation))
    }

    @Test(arguments: ["10.0.0.0/33", "10.0.0.0/-1", "::/129", "10.0.0.0/", "10.0.0.0/24/1", "/24", "10.0.0.0/0024", "10.0.0.0/x"])
    func aPrefixThatDoesNotFitIsRefused(text: String) {
        #expect(IPAddressRange(text) == nil)
    }

    @Test func theHostBitsOfARangeAreCleared() throws {
        #expect(try #require(IPAddressRange("10.0.0.77/24")).network == Self.mapped(10, 0, 0, 0))
    }
}
