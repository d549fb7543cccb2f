import Foundation

/// The backups a master lists (`stream.backups`: the same stream on a mirror, absolute URIs),
/// carrying the credential the master was fetched with. A player that fetched
/// `/access/<credential>/live/main/master.m3u8` resolves the master's relative URIs under that
/// prefix, so the origin's own variants keep it; an absolute backup URI would not, and a
/// player that fails over to the mirror would meet its gate with nothing. Given the same
/// credential, the mirror (which checks with the origin's rules) lets it play.
///
/// Pure: one URI in, one out. An absolute `http(s)://host/live/...` URI becomes
/// `http(s)://host/access/<credential>/live/...`; URIs already under `/access/` and relative
/// ones are left as they are. The origin applies it to the master's value
/// (`MultivariantPlaylist.mappingURIs`), never to rendered text.
public enum BackupCredential {
    public static func uri(_ text: String, carrying credential: String) -> String {
        guard let scheme = text.range(of: "://"), text[..<scheme.lowerBound] == "http" || text[..<scheme.lowerBound] == "https" else { return text }
        let afterScheme = text[scheme.upperBound...]
        guard let slash = afterScheme.firstIndex(of: "/") else { return text }
        let path = afterScheme[slash...]
        guard path.hasPrefix("/live/") else { return text }
        return String(text[..<slash]) + AccessGate.prefix + credential + path
    }

    /// The credential a request target carries (`/access/<credential>/...`), nil without one.
    public static func credential(in target: String) -> Substring? {
        guard target.hasPrefix(AccessGate.prefix) else { return nil }
        let rest = target.dropFirst(AccessGate.prefix.count)
        let credential = rest.prefix { $0 != "/" && $0 != "?" }
        return credential.isEmpty ? nil : credential
    }
}
