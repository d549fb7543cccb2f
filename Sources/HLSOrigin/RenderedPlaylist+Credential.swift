import NIOCore
import OriginAccess
import OriginRegistry
import OriginState

extension RenderedPlaylist {
    /// This master with its backups' URIs carrying `credential` (`BackupCredential`), for a
    /// request that fetched it under `/access/<credential>/`; itself when it lists none. Made
    /// per request, in the router's task (the fast path passes these requests on): once per
    /// player, when it opens the stream.
    func carrying(credential: String) -> RenderedPlaylist {
        let text = String(buffer: plain)
        let rewritten = BackupCredential.master(text, carrying: credential)
        guard rewritten != text else { return self }
        // Its own entity tag: the version's, and the credential's FNV-1a (not the credential).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in credential.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return RenderedPlaylist(text: rewritten, tag: String(etag.dropFirst().dropLast()) + "-a" + String(hash, radix: 16))
    }
}
