import SidelineCore

/// The edges whose forwarded-for header names the player (`server.trusted_proxies`), and who a
/// request counts against: the player behind a trusted edge, or the peer itself.
///
/// Why: behind an edge cache every player's request reaches the origin from the edge's one
/// address, so the per-client limits (connections, held requests, credential guesses) would
/// count a whole stadium as one client, and one guessing player would lock every other out.
/// With the edge trusted, each player counts for itself, and the edge for none of them.
///
/// Which entry of the header is the player: the header is a list each proxy appends its peer
/// to, so only the entries the trusted proxies appended can be believed. Read from the right,
/// the first address that is not itself a trusted proxy is the player; whatever a player
/// wrote further left is its own text and is never read. A header from a peer that is not
/// trusted is ignored altogether.
public struct TrustedProxies: Sendable, Equatable {
    public let ranges: [IPAddressRange]

    /// Entries read from the right of a forwarded-for header at most; a chain of proxies is a
    /// few long, and a header from a trusted proxy is still a player's text on its left.
    public static let maxHops = 16

    public init(_ ranges: [IPAddressRange] = []) {
        self.ranges = ranges
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether `address` (16 bytes, `IPAddressText.bytes`) is a trusted proxy.
    public func trusts(_ address: [UInt8]) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// Who a request counts against.
    public enum Client: Sendable, Equatable {
        /// The peer itself: no trusted proxy, or one that named nobody behind it.
        case peer
        /// The player a trusted proxy named, by its key (`ClientKey`): an IPv4 address or an
        /// IPv6 /64.
        case forwarded(key: String)
    }

    /// The client of a request from `peer` (16 bytes; nil for a Unix socket) carrying
    /// `forwardedFor` (the X-Forwarded-For header's value, nil when absent).
    public func client(peer: [UInt8]?, forwardedFor: String?) -> Client {
        guard let peer, let forwardedFor, !ranges.isEmpty, trusts(peer) else { return .peer }
        var hops = 0
        var end = forwardedFor.utf8.endIndex
        // From the right: each comma-separated entry, until one that is not a trusted proxy.
        while hops < Self.maxHops, end > forwardedFor.utf8.startIndex {
            let start = forwardedFor.utf8[..<end].lastIndex(of: UInt8(ascii: ",")).map { forwardedFor.utf8.index(after: $0) } ?? forwardedFor.utf8.startIndex
            let entry = Self.address(in: forwardedFor[start..<end])
            hops += 1
            end = start > forwardedFor.utf8.startIndex ? forwardedFor.utf8.index(before: start) : start
            // An entry that is not an address ends the reading: nothing left of it can be
            // believed, and the request counts against the last proxy that was.
            guard let entry else { return .peer }
            if trusts(entry) {
                if start == forwardedFor.utf8.startIndex { break }
                continue
            }
            return ClientKey.ipv6(entry).map { .forwarded(key: $0) } ?? .peer
        }
        return .peer
    }

    /// An entry's address: `192.0.2.1`, `2001:db8::1`, with a port (`192.0.2.1:5000`,
    /// `[2001:db8::1]:5000`), spaces around; nil for anything else (`unknown`, an obfuscated
    /// name, text too long to be an address).
    static func address(in entry: Substring) -> [UInt8]? {
        var text = entry.drop { $0 == " " || $0 == "\t" }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        guard !text.isEmpty, text.utf8.count <= 53 else { return nil }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            text = text[..<colon]
        }
        return IPAddressText.bytes(of: text)
    }
}
