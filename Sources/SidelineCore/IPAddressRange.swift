/// An IP address or CIDR range as an operator writes one in the config (`server.trusted_proxies`:
/// `10.0.0.5`, `10.0.0.0/24`, `fd00::/8`, `::1`), and the test whether an address is in it.
/// Every address is kept as 16 bytes, an IPv4 address as its IPv4-mapped IPv6 form
/// (`::ffff:a.b.c.d`, the form a dual-stack socket reports), so one range matches a client
/// however its socket spelled it.
public struct IPAddressRange: Sendable, Equatable, CustomStringConvertible {
    /// The range's first address (the host bits cleared), 16 bytes.
    public let network: [UInt8]
    /// Leading bits that must match, 0...128 (an IPv4 /24 is 120 here).
    public let prefixLength: Int
    /// As written in the config.
    public let description: String

    /// Nil when `text` is not an address or a CIDR range with a prefix that fits the address.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let address = IPAddressText.bytes(of: first) else { return nil }
        let isIPv4 = IPAddressText.isIPv4(first)
        var length = 128
        if parts.count == 2 {
            guard let bits = Int(parts[1]), parts[1].utf8.count <= 3, bits >= 0, bits <= (isIPv4 ? 32 : 128) else { return nil }
            length = isIPv4 ? bits + 96 : bits
        }
        prefixLength = length
        network = Self.masked(address, prefixLength: length)
        description = text
    }

    /// Whether `address` (16 bytes) is in the range.
    public func contains(_ address: [UInt8]) -> Bool {
        address.count == 16 && Self.masked(address, prefixLength: prefixLength) == network
    }

    private static func masked(_ address: [UInt8], prefixLength: Int) -> [UInt8] {
        address.enumerated().map { index, byte in
            let bitsHere = min(8, max(0, prefixLength - index * 8))
            return bitsHere == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - bitsHere))
        }
    }
}

/// Reads an IP address's text into 16 bytes (IPv4 as IPv4-mapped IPv6), without the C library:
/// the same reading for the config and for the addresses a forwarded-for header names. Bounded:
/// text longer than any address is refused before it is looked at.
public enum IPAddressText {
    /// The 16 bytes of `text` (`192.0.2.1`, `2001:db8::1`, `::ffff:192.0.2.1`), or nil.
    public static func bytes<S: StringProtocol>(of text: S) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        if isIPv4(text) {
            guard let four = ipv4(text) else { return nil }
            return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + four
        }
        return ipv6(text)
    }

    static func isIPv4<S: StringProtocol>(_ text: S) -> Bool { !text.contains(":") }

    private static func ipv4<S: StringProtocol>(_ text: S) -> [UInt8]? {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for octet in octets {
            // Decimal only, no leading zeros (inet_pton's reading: `010` is not 8 or 10).
            guard !octet.isEmpty, octet.utf8.count <= 3, octet.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  octet.utf8.count == 1 || octet.utf8.first != 48, let value = UInt8(octet) else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
    }

    private static func ipv6<S: StringProtocol>(_ text: S) -> [UInt8]? {
        // Split at the one "::" (two are ambiguous, and ":::" is two).
        let characters = Array(text.utf8)
        var compressed: Int?
        for index in characters.indices.dropLast() where characters[index] == 58 && characters[index + 1] == 58 {
            guard compressed == nil else { return nil }
            compressed = index
        }
        let halves: [String] = compressed.map { at in
            [String(decoding: characters[..<at], as: UTF8.self), String(decoding: characters[(at + 2)...], as: UTF8.self)]
        } ?? [String(text)]
        func groups(_ part: String) -> [UInt8]? {
            if part.isEmpty { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains(".") {
                    guard let four = ipv4(piece) else { return nil }
                    bytes += four
                    continue
                }
                guard !piece.isEmpty, piece.utf8.count <= 4, piece.utf8.allSatisfy(isHexDigit), let value = UInt16(piece, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}
