import OriginPolicy
import Testing

/// Parameters of `Content-Type` and `Content-Disposition` (RFC 9110 §5.6.6), as the ingest's
/// multipart uploads carry them.
@Suite struct HeaderParameterTests {
    @Test func aTokenValue() {
        #expect(HeaderTokens.parameter("boundary", in: "multipart/form-data; boundary=----abc123") == "----abc123")
        #expect(HeaderTokens.parameter("BOUNDARY", in: "multipart/form-data;boundary=x ;charset=utf-8") == "x", "names without case, spaces around")
    }

    @Test func aQuotedValueWithEscapesAndSemicolons() {
        let disposition = #"form-data; name="uploadFile"; filename="seg; \"1\".ts""#
        #expect(HeaderTokens.parameter("name", in: disposition) == "uploadFile")
        #expect(HeaderTokens.parameter("filename", in: disposition) == #"seg; "1".ts"#)
    }

    @Test func missingOrBrokenParameters() {
        #expect(HeaderTokens.parameter("boundary", in: "multipart/form-data") == nil)
        #expect(HeaderTokens.parameter("filename", in: #"form-data; name="uploadFile""#) == nil)
        #expect(HeaderTokens.parameter("name", in: #"form-data; name="unterminated"#) == nil)
        #expect(HeaderTokens.parameter("name", in: "form-data; novalue") == nil)
    }
}
