/// `Authorization: Bearer <token>`, read and compared without leaking timing.
public enum BearerToken {
    /// The token's bytes; nil without a Bearer credential.
    public static func value(of header: String?) -> [UInt8]? {
        let prefix = "Bearer "
        guard let header, header.hasPrefix(prefix), header.utf8.count > prefix.utf8.count else { return nil }
        return Array(header.utf8.dropFirst(prefix.utf8.count))
    }

    /// Whether `a` and `b` are equal, in a time that does not depend on where they first differ.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }
}
