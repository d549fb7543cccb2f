import SidelineLibCrypto

/// HMAC-SHA256 (RFC 2104 over FIPS 180-4), computed by the system's libcrypto in one call.
/// A pure function: no state is kept between calls, and OpenSSL's one-shot `HMAC` allocates
/// its context on its own stack of calls.
enum HMACSHA256 {
    static let codeSize = 32

    /// The 32-byte code of `message` under `key`. Any key length is taken (a key longer than
    /// SHA-256's block is hashed first, as RFC 2104 says); OpenSSL takes the length as `Int32`,
    /// and keys and messages here are credentials and URL fields of a few hundred bytes at most,
    /// so a length past that is refused by a precondition rather than truncated.
    static func code(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        precondition(key.count <= Int(Int32.max), "an HMAC key of \(key.count) bytes")
        var code = [UInt8](repeating: 0, count: codeSize)
        var written: UInt32 = 0
        let made = key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                code.withUnsafeMutableBufferPointer { out in
                    // An empty array may have no address; OpenSSL reads no byte of a zero-length
                    // input, so the output's address stands in for it.
                    let stand = UnsafePointer(out.baseAddress!)
                    return HMAC(EVP_sha256(), keyBytes.baseAddress ?? stand, Int32(key.count),
                                messageBytes.baseAddress ?? stand, message.count, out.baseAddress, &written)
                }
            }
        }
        // HMAC fails only when libcrypto cannot allocate or SHA-256 is missing from its provider:
        // nothing a request can cause, and no credential may be checked against a zeroed code.
        precondition(made != nil && written == UInt32(codeSize), "libcrypto's HMAC-SHA256 failed")
        return code
    }
}
