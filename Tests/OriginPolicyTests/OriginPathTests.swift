import HLSPlaylist
import OriginPolicy
import Testing

@Suite struct OriginPathTests {
    @Test(arguments: [
        ("/live/main/master.m3u8", OriginPath.master(stream: "main")),
        ("/live/main/720p/index.m3u8", .mediaPlaylist(stream: "main", variant: "720p")),
        ("/live/main/720p/iframes.m3u8", .iFramePlaylist(stream: "main", variant: "720p")),
        ("/live/main/720p/000042.ts", .segment(stream: "main", variant: "720p", name: "000042.ts")),
        ("/live/main/720p/000042.ts?_HLS_msn=3", .segment(stream: "main", variant: "720p", name: "000042.ts")),
        ("/live/cam-2_north/720p/index.m3u8", .mediaPlaylist(stream: "cam-2_north", variant: "720p")),
        ("/live/m%61in/master.m3u8", .master(stream: "main")),
        ("/live/main/720p/parts/000042.0.ts", .part(stream: "main", variant: "720p", segment: "000042.ts", index: 0)),
        ("/live/main/720p/parts/000042.13.ts?_HLS_msn=3", .part(stream: "main", variant: "720p", segment: "000042.ts", index: 13)),
        ("/live/main/720p/parts/cam.b-7.999.ts", .part(stream: "main", variant: "720p", segment: "cam.b-7.ts", index: 999)),
        // A segment named like a part is a segment: parts are only ever under parts/.
        ("/live/main/720p/000042.1.ts", .segment(stream: "main", variant: "720p", name: "000042.1.ts")),
    ])
    func resourcesParse(path: String, expected: OriginPath) {
        #expect(OriginPath.parse(path) == .success(expected))
    }

    /// The URI a playlist lists a part by parses back to that part.
    @Test func aPartsURIParsesBackToThePart() {
        for (segment, index) in [("000042.ts", 0), ("000042.ts", 7), ("cam.b-7.ts", 999)] {
            let uri = PartialSegment.recordedURI(segment: segment, index: index)
            #expect(OriginPath.parse("/live/main/720p/" + uri) == .success(.part(stream: "main", variant: "720p", segment: segment, index: index)), "\(uri)")
        }
        #expect(PartialSegment.recordedURI(segment: "000042.ts", index: 3) == "parts/000042.3.ts")
    }

    /// Every way a request could try to leave the data directory, or name nothing.
    @Test(arguments: [
        "/live/../main/master.m3u8",
        "/live/main/../../etc/passwd",
        "/live/%2e%2e/%2e%2e/etc/passwd",
        "/live/%2E%2E/main/master.m3u8",
        "/live/main/720p/..%2f..%2f..%2fetc%2fpasswd",
        "/live/main/720p%2F..%2F..%2Fsecret/index.m3u8",
        "/live//etc/passwd",
        "/live/main//000001.ts",
        "/live/.hidden/master.m3u8",
        "/live/main/720p/.tmp-000001.ts.1",
        "/etc/passwd",
        "/live/main/720p/index.txt",
        "/live/main/720p/000001.ts/extra",
        "/live/main",
        "/live/main/",
        "live/main/master.m3u8",
        "/live/main/720p/%2Fetc%2Fpasswd.ts",
        "/live/main/720p/\\..\\x.ts",
        "/live/main/720p/parts/000042.ts",          // a part without an index
        "/live/main/720p/parts/000042.01.ts",       // a leading zero: one spelling per part
        "/live/main/720p/parts/000042.1000.ts",     // past the largest index
        "/live/main/720p/parts/000042.-1.ts",
        "/live/main/720p/parts/.1.ts",              // no segment name
        "/live/main/720p/parts/000042.1.m3u8",
        "/live/main/720p/parts/%2e%2e.1.ts",        // not a plain name once decoded
        "/live/main/720p/parts/000042.1.ts/x",
    ])
    func escapesAndUnknownPathsAreNotFound(path: String) {
        #expect(OriginPath.parse(path) == .failure(.notFound))
    }

    @Test(arguments: [
        "/live/main/720p/000001.ts%00.m3u8",
        "/live/main%00/master.m3u8",
        "/live/main/720p/%0a.ts",
        "/live/main/%zz/index.m3u8",
        "/live/main/720p/%2",
        "/live/%ff%fe/master.m3u8",
    ])
    func malformedPathsAreBadRequests(path: String) {
        guard case .failure(.malformed) = OriginPath.parse(path) else {
            Issue.record("\(path) should be malformed, got \(OriginPath.parse(path))")
            return
        }
    }
}
