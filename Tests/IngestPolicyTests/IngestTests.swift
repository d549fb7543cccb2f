import IngestPolicy
import OriginPolicy
import Testing

/// What a push may name and who may push (issue 19's ingest, the pure part).
@Suite struct IngestTests {
    /// The layout `ffmpeg -f hls -method PUT -master_pl_name master.m3u8 -var_stream_map ...
    /// http://server/ingest/{stream}/%v/index.m3u8` writes.
    @Test func theLayoutFfmpegsHLSMuxerWrites() {
        #expect(IngestPath.parse("/ingest/pitch2/master.m3u8") == .success(.master(stream: "pitch2")))
        #expect(IngestPath.parse("/ingest/pitch2/metadata") == .success(.metadata(stream: "pitch2")))
        #expect(IngestPath.parse("/ingest/pitch2/720p/index.m3u8") == .success(.mediaPlaylist(stream: "pitch2", variant: "720p")))
        #expect(IngestPath.parse("/ingest/pitch2/720p/index3.ts") == .success(.segment(stream: "pitch2", variant: "720p", name: "index3.ts")))
        #expect(IngestPath.parse("/ingest/pitch2/720p/index.m3u8?t=1") == .success(.mediaPlaylist(stream: "pitch2", variant: "720p")))
    }

    @Test func noUploadCanNameAFileOutsideItsStream() {
        for path in ["/ingest/pitch2/../secret.ts", "/ingest/pitch2/%2e%2e/x.ts", "/ingest/pitch2/720p%2F..%2F..%2Fx.ts", "/ingest/.hidden/master.m3u8",
                     "/ingest/pitch2/720p/iframes.m3u8", "/ingest/pitch2/720p/a/b.ts", "/live/pitch2/master.m3u8", "/ingest/pitch2"] {
            #expect(IngestPath.parse(path) == .failure(.notFound), "\(path)")
        }
        guard case .failure(.malformed) = IngestPath.parse("/ingest/pitch2/720p/a%00.ts") else {
            Issue.record("a NUL in a name is a malformed request")
            return
        }
    }

    let tokens = ["pitch2": "p2-secret", "roof": "roof-secret"]

    func status(_ stream: String, _ header: String?) -> Int? {
        IngestAuthorization.check(stream: stream, authorization: header, tokens: tokens)?.status
    }

    @Test func onlyTheStreamsOwnTokenPushes() {
        #expect(status("pitch2", "Bearer p2-secret") == nil)
        #expect(status("pitch2", nil) == 401)
        #expect(status("pitch2", "Basic p2-secret") == 401)
        #expect(status("pitch2", "Bearer p2-secre") == 401, "a token no stream has")
        #expect(status("pitch2", "Bearer roof-secret") == 403, "another stream's token")
        #expect(status("main", "Bearer p2-secret") == 403, "a stream that takes no pushes")
        let challenge = IngestAuthorization.check(stream: "pitch2", authorization: nil, tokens: tokens)
        #expect(challenge?.realm == IngestAuthorization.realm && challenge?.audience == .operators)
        #expect(IngestAuthorization.check(stream: "roof", authorization: "Bearer roof-secret", tokens: tokens) == nil)
    }

    @Test func bearerTokensAreComparedWhole() {
        #expect(BearerToken.value(of: "Bearer abc") == Array("abc".utf8))
        #expect(BearerToken.value(of: "Bearer ") == nil && BearerToken.value(of: "bearer abc") == nil && BearerToken.value(of: nil) == nil)
        #expect(BearerToken.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!BearerToken.constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)) && !BearerToken.constantTimeEqual(Array("abd".utf8), Array("abc".utf8)))
    }
}
