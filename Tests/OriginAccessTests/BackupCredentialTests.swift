import OriginAccess
import Testing

/// A master's backups carry the credential it was fetched with, so failover keeps playing.
@Suite struct BackupCredentialTests {
    static let master = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="x",URI="http://10.0.0.3:8081/live/main/audio/index.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=2000000
        720p/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2000000
        http://10.0.0.3:8081/live/main/720p/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2000000
        https://bench.local/live/main/720p/index.m3u8
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI="720p/iframes.m3u8"

        """

    @Test func absoluteLiveURIsGetTheCredentialAndNothingElseChanges() {
        let out = BackupCredential.master(Self.master, carrying: "s1~main~9~~sig")
        #expect(out == """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="x",URI="http://10.0.0.3:8081/access/s1~main~9~~sig/live/main/audio/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2000000
            720p/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000
            http://10.0.0.3:8081/access/s1~main~9~~sig/live/main/720p/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000
            https://bench.local/access/s1~main~9~~sig/live/main/720p/index.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI="720p/iframes.m3u8"

            """)
        // A master without absolute URIs is the same text.
        #expect(BackupCredential.master("#EXTM3U\n720p/index.m3u8\n", carrying: "c") == "#EXTM3U\n720p/index.m3u8\n")
        // Not under /live/ (or already under /access/): left as it is.
        #expect(BackupCredential.master("http://h/access/x/live/a.m3u8\nftp://h/live/a\nhttp://h\n", carrying: "c") == "http://h/access/x/live/a.m3u8\nftp://h/live/a\nhttp://h\n")
    }

    @Test func theCredentialOfATarget() {
        #expect(BackupCredential.credential(in: "/access/abc/live/main/master.m3u8") == "abc")
        #expect(BackupCredential.credential(in: "/access/abc?x") == "abc")
        #expect(BackupCredential.credential(in: "/access//live") == nil)
        #expect(BackupCredential.credential(in: "/live/main/master.m3u8") == nil)
    }
}
