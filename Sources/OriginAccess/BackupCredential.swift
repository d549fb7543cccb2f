import Foundation

/// The backups a master lists (`stream.backups`: the same stream on a mirror, absolute URIs),
/// carrying the credential the master was fetched with. A player that fetched
/// `/access/<credential>/live/main/master.m3u8` resolves the master's relative URIs under that
/// prefix, so the origin's own variants keep it; an absolute backup URI would not, and a
/// player that fails over to the mirror would meet its gate with nothing. Given the same
/// credential, the mirror (which checks with the origin's rules) lets it play.
///
/// Pure text in, text out: every absolute `http(s)://host/live/...` URI in the master, on a
/// URI line or in a `URI="..."` attribute, becomes `http(s)://host/access/<credential>/live/...`.
/// URIs already under `/access/` and relative ones are left as they are.
public enum BackupCredential {
    public static func master(_ text: String, carrying credential: String) -> String {
        guard text.contains("://") else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("#") ? attributes(line, credential) : uri(line, credential)
        }.joined(separator: "\n")
    }

    /// One URI: the credential inserted after the authority when the path is under `/live/`.
    static func uri(_ text: Substring, _ credential: String) -> String {
        guard let scheme = text.range(of: "://"), text[..<scheme.lowerBound] == "http" || text[..<scheme.lowerBound] == "https" else { return String(text) }
        let afterScheme = text[scheme.upperBound...]
        guard let slash = afterScheme.firstIndex(of: "/") else { return String(text) }
        let path = afterScheme[slash...]
        guard path.hasPrefix("/live/") else { return String(text) }
        return String(text[..<slash]) + AccessGate.prefix + credential + path
    }

    /// A tag line: every `URI="..."` value through `uri`.
    static func attributes(_ line: Substring, _ credential: String) -> String {
        guard line.contains("URI=\"") else { return String(line) }
        var out = ""
        var rest = line
        while let start = rest.range(of: "URI=\"") {
            out += rest[..<start.upperBound]
            rest = rest[start.upperBound...]
            let end = rest.firstIndex(of: "\"") ?? rest.endIndex
            out += uri(rest[..<end], credential)
            rest = rest[end...]
        }
        return out + rest
    }

    /// The credential a request target carries (`/access/<credential>/...`), nil without one.
    public static func credential(in target: String) -> Substring? {
        guard target.hasPrefix(AccessGate.prefix) else { return nil }
        let rest = target.dropFirst(AccessGate.prefix.count)
        let credential = rest.prefix { $0 != "/" && $0 != "?" }
        return credential.isEmpty ? nil : credential
    }
}
