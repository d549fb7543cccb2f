import HLSOrigin
import Testing

/// `X-Request-ID`: a client's ID is kept only when it can go into a log line and a header as
/// it is; anything else (hostile, empty, too long) gets one made here.
@Suite struct RequestIDTests {
    @Test(arguments: [
        ("a proxy's", "f47ac10b-58cc-4372-a567-0e02b2c3d479", true),
        ("visible ASCII", "abc!~{}", true),
        ("128 bytes", String(repeating: "x", count: 128), true),
        ("129 bytes", String(repeating: "x", count: 129), false),
        ("empty", "", false),
        ("a space", "a b", false),
        ("a line break into the log", "a\nlevel=error forged", false),
        ("a control character", "a\u{1}", false),
        ("DEL", "a\u{7F}", false),
        ("non-ASCII", "é", false),
    ])
    func aClientsIDIsKeptOnlyWhenItIsSafeAsItIs(name: String, given: String, kept: Bool) {
        let taken = RequestID.take(given)
        #expect((taken == given) == kept, "\(name)")
        #expect(!taken.isEmpty && taken.utf8.count <= 128 && taken.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "\(name): \(taken)")
    }

    @Test func madeIDsAreUniqueAndShareThisProcesssPrefix() {
        let made = (0..<1000).map { _ in RequestID.take(nil) }
        #expect(Set(made).count == made.count)
        let prefixes = Set(made.map { $0.split(separator: "-").first.map(String.init) ?? "" })
        #expect(prefixes.count == 1 && prefixes.first?.isEmpty == false)
    }
}
