import OriginPolicy
import Testing

@Suite struct ByteRangeRequestTests {
    @Test(arguments: [
        (nil as String?, 1000, ByteRangeRequest.whole),
        ("bytes=0-99", 1000, .partial(0...99)),
        ("bytes=500-", 1000, .partial(500...999)),
        ("bytes=900-5000", 1000, .partial(900...999)),
        ("bytes=-100", 1000, .partial(900...999)),
        ("bytes=-5000", 1000, .partial(0...999)),
        ("bytes=999-999", 1000, .partial(999...999)),
        ("bytes=1000-", 1000, .unsatisfiable),
        ("bytes=2000-3000", 1000, .unsatisfiable),
        ("bytes=-0", 1000, .unsatisfiable),
        ("bytes=0-1,5-9", 1000, .whole),        // multi-range: whole body, as RFC 9110 allows
        ("bytes=9-5", 1000, .whole),            // invalid: ignored
        ("bytes=a-b", 1000, .whole),
        ("items=0-5", 1000, .whole),
        ("bytes=-", 1000, .whole),
        (" bytes=10-19 ", 1000, .partial(10...19)),
    ])
    func rangesResolveAgainstTheSize(header: String?, size: Int, expected: ByteRangeRequest) {
        #expect(ByteRangeRequest(header: header, size: size) == expected)
    }
}
