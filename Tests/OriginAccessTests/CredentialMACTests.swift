@testable import OriginAccess
import Testing

/// The MAC under every credential. Credentials already handed out (signed URLs in messages,
/// viewer links on screens) must verify after any change of the library computing it: the
/// expected texts below were computed apart from Sideline, with Python's `hmac` module, when
/// HMAC-SHA256 moved from swift-crypto to the system's libcrypto (2026-12-07).
@Suite struct CredentialMACTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0 >> 4, radix: 16) + String($0 & 0x0f, radix: 16) }.joined()
    }

    /// RFC 4231's test cases 1, 2 and 6 (a key longer than SHA-256's block), and empty input.
    @Test(arguments: [
        ([UInt8](repeating: 0x0b, count: 20), "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First", "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ([], "", "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"),
    ])
    func hmacSHA256MatchesRFC4231(key: [UInt8], message: String, expected: String) {
        #expect(Self.hex(HMACSHA256.code(for: Array(message.utf8), key: key)) == expected)
    }

    @Test(arguments: [
        (AccessCredential.viewer(stream: "home"), "home-viewer-secret", "v1~home~_0dlZh4yx1bRblN-KsjTMg"),
        (.signed(stream: "home", expires: 1_800_000_000, variant: "720p"), "venue-signing-key", "s1~home~1800000000~720p~pyp05jUSZpDcKgO2IIEqcw"),
        (.signed(stream: "away", expires: 1_800_000_600, variant: nil), String(repeating: "k", count: 100), "s1~away~1800000600~~N5CnHBSppQCOap6nB4qXNA"),
    ])
    func credentialsHandedOutBeforeStillVerify(credential: AccessCredential, key: String, text: String) throws {
        #expect(credential.text(key: key) == text)
        let parsed = try #require(AccessCredential.parse(Substring(text)))
        #expect(parsed.credential == credential)
        #expect(parsed.verify(key: key))
        #expect(!parsed.verify(key: key + "x"))
    }
}
