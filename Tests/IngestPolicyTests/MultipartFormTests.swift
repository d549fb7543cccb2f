import Foundation
import IngestPolicy
import OriginPolicy
import Testing

/// The ingest's reading of a multipart/form-data upload (RFC 7578 over RFC 2046 §5.1.1). The
/// fuzzer found that MultipartKit 4.7.1, which read it before, indexes a 128-entry table with a
/// header name's byte: one byte above 127 there stopped the server (issue 26).
@Suite struct MultipartFormTests {
    static let type = "multipart/form-data; boundary=xYz"

    static func form(_ parts: [(headers: String, body: [UInt8])], boundary: String = "xYz", preamble: String = "", epilogue: String = "\r\n") -> [UInt8] {
        var bytes = Array(preamble.utf8)
        for part in parts { bytes += Array("--\(boundary)\r\n\(part.headers)\r\n\r\n".utf8) + part.body + Array("\r\n".utf8) }
        return bytes + Array("--\(boundary)--\(epilogue)".utf8)
    }

    static func disposition(_ name: String, filename: String? = nil) -> String {
        "Content-Disposition: form-data; name=\"\(name)\"" + (filename.map { "; filename=\"\($0)\"" } ?? "")
    }

    /// The input the fuzzer found (Tests/Fixtures/fuzz/multipart-form/crash-header-name-byte-above-127):
    /// a header name with bytes 0xFF in it.
    @Test func aHeaderNameWithAByteAbove127IsRefusedNotATrap() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fuzz/multipart-form/crash-header-name-byte-above-127")
        let input = [UInt8](try Data(contentsOf: url))
        let split = try #require(input.firstIndex(of: UInt8(ascii: "\n")))
        #expect(throws: (any Error).self) { try MultipartUpload.file(in: Array(input[(split + 1)...]), contentType: String(decoding: input[..<split], as: UTF8.self)).get() }
        let form = Self.form([(headers: "Cont\u{FF}ent-Disposition: form-data; name=\"uploadFile\"", body: [1, 2, 3])])
        #expect(throws: (any Error).self) { try MultipartUpload.file(in: form, contentType: Self.type).get() }
    }

    @Test func theFileIsThePartNamedUploadFileElseTheOnePartWithAFilename() throws {
        let file: [UInt8] = (0..<5_000).map { UInt8($0 % 256) }
        let form = Self.form([(Self.disposition("title"), Array("Roof".utf8)), (Self.disposition("uploadFile", filename: "seg1.ts") + "\r\nContent-Type: video/mp2t", file)],
                             preamble: "ignored preamble\r\n")
        #expect(try MultipartUpload.file(in: form, contentType: Self.type).get() == file)
        #expect(try MultipartUpload.file(in: Self.form([(Self.disposition("file", filename: "a.ts"), file)]), contentType: Self.type).get() == file)
        #expect(throws: (any Error).self) { try MultipartUpload.file(in: Self.form([(Self.disposition("title"), [1])]), contentType: Self.type).get() }
        #expect(throws: (any Error).self) {
            try MultipartUpload.file(in: Self.form([(Self.disposition("a", filename: "a.ts"), [1]), (Self.disposition("b", filename: "b.ts"), [2])]), contentType: Self.type).get()
        }
    }

    /// A filename in UTF-8 (a phone's file name) is a header value, not a name: taken.
    @Test func aHeaderValueInUTF8IsTaken() throws {
        let form = Self.form([(Self.disposition("uploadFile", filename: "tribüne.ts"), [7, 8])])
        let parts = try MultipartForm.parts(of: form, boundary: "xYz").get()
        #expect(parts.first?.header("content-disposition")?.contains("tribüne") == true)
        #expect(parts.first.map { Array(form[$0.body]) } == [7, 8])
    }

    /// A body that holds the boundary's text without CRLF before it, and CRLFs of its own.
    @Test func aBodyEndsOnlyAtCRLFAndTheDelimiter() throws {
        let body = Array("a--xYz b\r\n-- xYz\r\n\r\n".utf8)
        let parts = try MultipartForm.parts(of: Self.form([(Self.disposition("uploadFile"), body)]), boundary: "xYz").get()
        #expect(parts.count == 1)
        #expect(parts.first.map { Array(Self.form([(Self.disposition("uploadFile"), body)])[$0.body]) } == body)
    }

    @Test(arguments: [
        ("no delimiter at all", Array("just text".utf8)),
        ("truncated body", Array("--xYz\r\nContent-Disposition: form-data; name=\"uploadFile\"\r\n\r\nab".utf8)),
        ("truncated headers", Array("--xYz\r\nContent-Disposition: form-data".utf8)),
        ("no close delimiter", Array("--xYz\r\nA: b\r\n\r\nab\r\n--xYz".utf8)),
        ("header line without a colon", Array("--xYz\r\nnot a header\r\n\r\nab\r\n--xYz--".utf8)),
        ("empty header name", Array("--xYz\r\n: x\r\n\r\nab\r\n--xYz--".utf8)),
        ("bytes after the delimiter", Array("--xYz junk\r\nA: b\r\n\r\nab\r\n--xYz--".utf8)),
        ("empty", []),
    ])
    func malformedFormsAreRefused(_ what: String, body: [UInt8]) {
        #expect(throws: (any Error).self, "\(what)") { try MultipartForm.parts(of: body, boundary: "xYz").get() }
    }

    @Test(arguments: ["", String(repeating: "b", count: 71), "a\u{FF}b", "a\r\nb", "a\"b"])
    func aBoundaryRFC2046DoesNotAllowIsRefused(boundary: String) {
        #expect(throws: (any Error).self) { try MultipartForm.parts(of: Self.form([(Self.disposition("uploadFile"), [1])], boundary: boundary), boundary: boundary).get() }
    }

    /// Many parts, or a long header block, are refused before they cost much.
    @Test func partsAndHeadersAreBounded() {
        let many = Self.form(Array(repeating: (Self.disposition("x"), [UInt8]()), count: MultipartForm.maximumParts + 1))
        #expect(throws: (any Error).self) { try MultipartForm.parts(of: many, boundary: "xYz").get() }
        let longHeader = Self.form([(Self.disposition("uploadFile") + "\r\nX-Long: " + String(repeating: "a", count: MultipartForm.maximumHeaderBytes), [1])])
        #expect(throws: (any Error).self) { try MultipartForm.parts(of: longHeader, boundary: "xYz").get() }
    }

    /// A body full of near-delimiters is read in time linear in its length (no quadratic search).
    @Test func nearDelimitersDoNotMakeTheSearchQuadratic() throws {
        let boundary = String(repeating: "b", count: 70)
        let near = [UInt8](repeating: 0, count: 0) + Array(String(repeating: "\r\n--" + String(repeating: "b", count: 69) + "X", count: 20_000).utf8)
        let form = Self.form([(Self.disposition("uploadFile"), near)], boundary: boundary)
        let start = Date()
        let parts = try MultipartForm.parts(of: form, boundary: boundary).get()
        #expect(parts.count == 1)
        #expect(Date().timeIntervalSince(start) < 2, "1.5 MB of near-delimiters")
    }
}
