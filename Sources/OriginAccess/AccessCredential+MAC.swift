import OriginPolicy

// The MACs of access credentials (HMAC-SHA256, the system's libcrypto), apart from their
// parsing (AccessCredential.swift), which is fuzzed without it (scripts/fuzz).

extension AccessCredential {
    /// The credential's text, authenticated with `key` (the viewer token for `.viewer`, the
    /// signing key for `.signed`).
    public func text(key: String) -> String {
        let fields = self.fields
        return (fields + [Self.mac(of: fields, key: key)]).joined(separator: "~")
    }

    static func mac(of fields: [String], key: String) -> String {
        let message = "sideline-access\n" + fields.joined(separator: "\n")
        return Base64URL.encode(Array(HMACSHA256.code(for: Array(message.utf8), key: Array(key.utf8)).prefix(16)))
    }
}

extension AccessCredential.Parsed {
    /// Whether the MAC was made with `key` over these fields. Constant time in the MAC.
    public func verify(key: String) -> Bool {
        let expected = AccessCredential.mac(of: fields.map(String.init), key: key)
        return BearerToken.constantTimeEqual(Array(mac.utf8), Array(expected.utf8))
    }
}

/// base64url without padding (RFC 4648 §5): URL-path safe as it is.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let b0 = UInt32(bytes[index]), b1 = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0, b2 = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            let emitted = min(4, (bytes.count - index) * 4 / 3 + 1)
            for shift in [18, 12, 6, 0].prefix(emitted) { out.append(alphabet[Int(triple >> UInt32(shift) & 0x3F)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
