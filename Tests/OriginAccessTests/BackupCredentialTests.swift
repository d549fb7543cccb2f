import OriginAccess
import Testing

/// A master's backups carry the credential it was fetched with, so failover keeps playing.
@Suite struct BackupCredentialTests {
    /// Absolute `/live/` URIs (a backup on a mirror) get the credential after the authority;
    /// relative ones, and any not under `/live/` (or already under `/access/`), stay.
    @Test(arguments: [
        ("http://10.0.0.3:8081/live/main/720p/index.m3u8", "http://10.0.0.3:8081/access/s1~main~9~~sig/live/main/720p/index.m3u8"),
        ("https://bench.local/live/main/720p/index.m3u8", "https://bench.local/access/s1~main~9~~sig/live/main/720p/index.m3u8"),
        ("720p/index.m3u8", "720p/index.m3u8"),
        ("720p/iframes.m3u8", "720p/iframes.m3u8"),
        ("http://h/access/x/live/a.m3u8", "http://h/access/x/live/a.m3u8"),
        ("ftp://h/live/a", "ftp://h/live/a"),
        ("http://h", "http://h"),
        ("http://h/vod/main/master.m3u8", "http://h/vod/main/master.m3u8"),
    ])
    func absoluteLiveURIsGetTheCredentialAndNothingElseChanges(uri: String, carried: String) {
        #expect(BackupCredential.uri(uri, carrying: "s1~main~9~~sig") == carried)
    }

    @Test func theCredentialOfATarget() {
        #expect(BackupCredential.credential(in: "/access/abc/live/main/master.m3u8") == "abc")
        #expect(BackupCredential.credential(in: "/access/abc?x") == "abc")
        #expect(BackupCredential.credential(in: "/access//live") == nil)
        #expect(BackupCredential.credential(in: "/live/main/master.m3u8") == nil)
    }
}
