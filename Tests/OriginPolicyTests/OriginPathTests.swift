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
    ])
    func resourcesParse(path: String, expected: OriginPath) {
        #expect(OriginPath.parse(path) == .success(expected))
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
