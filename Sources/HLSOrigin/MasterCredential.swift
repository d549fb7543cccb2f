import HLSPlaylist
import OriginAccess
import OriginRegistry
import OriginState
import Synchronization

extension StreamRegistry {
    /// The master `name` names (a stream's, or an angle set's), as served to a request that
    /// fetched it under `/access/<credential>/`: every absolute `/live/` URI in it (a backup on
    /// a mirror, `stream.backups`) carries the credential (`BackupCredential`), so a player that
    /// fails over keeps its access. Made from the master's value and rendered, per request in
    /// the router's task (the fast path passes these on): once per player, when it opens the
    /// stream. Nil when there is no such master or it lists no URI to change: the master as
    /// served is the answer then.
    func master(named name: String, variantLimit: String?, carrying credential: String) -> RenderedPlaylist? {
        let carry = { (uri: String) in BackupCredential.uri(uri, carrying: credential) }
        if let set = angleSet(named: name) {
            guard let (master, tag) = setMasterValue(set, variantLimit: variantLimit) else { return nil }
            let carrying = master.mappingURIs(carry)
            guard carrying != master, let text = carrying.render(variantLimit: variantLimit) else { return nil }
            return RenderedPlaylist(text: text, tag: Self.tag(tag, carrying: credential))
        }
        // The value and its rendering read together: the tag says which version was changed.
        guard let snapshot = snapshot(of: name), let published = snapshot.stream.masterPlaylist,
              let served = variantLimit.map({ snapshot.served.limitedMasters[$0] }) ?? snapshot.served.master,
              let master = variantLimit.map({ published.limited(toVariant: $0) }) ?? published else { return nil }
        let carrying = master.mappingURIs(carry)
        guard carrying != master else { return nil }
        return RenderedPlaylist(text: carrying.render(), tag: Self.tag(String(served.etag.dropFirst().dropLast()), carrying: credential))
    }

    /// A version's tag with the credential's FNV-1a (not the credential) added: one tag per
    /// version and credential.
    static func tag(_ version: String, carrying credential: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in credential.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return version + "-a" + String(hash, radix: 16)
    }
}
