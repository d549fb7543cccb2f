import Foundation
import SidelineCore

/// What `sideline mirror` is told to follow: the upstream's master URL, the local stream name,
/// and the headers sent with every request, checked once at start. Whether the upstream is
/// private follows from how the mirror reaches it: the origin's gate answers a private
/// stream's playlists only to a request that offers a credential, so a mirror that can read
/// one offers one, in the URL (`/access/<credential>/live/...`, a signed URL from
/// `sideline sign`) or in a header (`--header 'Authorization: Bearer ...'`).
public struct MirrorUpstream: Sendable {
    public let master: URL
    public let stream: String
    public let headers: [(String, String)]

    /// `url`: the master playlist URL; `stream`: the local name (default: the upstream's);
    /// `headers`: `Name: value` lines; `isValidName`: the config's rule for stream names. An
    /// error says what to give instead, and never shows a credential.
    public init(url text: String, stream: String?, headers lines: [String], isValidName: (String) -> Bool) throws(SidelineStartupError) {
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil,
              url.lastPathComponent.hasSuffix(".m3u8") else {
            throw SidelineStartupError(message: "'\(Redaction.url(text))' is not an upstream master playlist URL; give one like http://10.0.0.2:8080/live/main/master.m3u8")
        }
        let name = stream ?? url.deletingLastPathComponent().lastPathComponent
        guard isValidName(name) else {
            throw SidelineStartupError(message: "'\(name)' cannot be a stream name (letters, digits, '-', '_' or '.'); give one with --stream")
        }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), !line[..<colon].trimmingCharacters(in: .whitespaces).isEmpty else {
                throw SidelineStartupError(message: "--header '\(Redaction.headerLine(line))' is not 'Name: value' (for example --header 'Authorization: Bearer abc')")
            }
            headers.append((line[..<colon].trimmingCharacters(in: .whitespaces), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        master = url
        self.stream = name
        self.headers = headers
    }

    /// Whether the mirror offers the upstream a credential: then what it records is a
    /// private stream's, and it must not be served to anyone who asks.
    public var isPrivate: Bool {
        Redaction.offersCredential(target: master.path, authorization: headers.first { $0.0.lowercased() == "authorization" }?.1)
            || headers.contains { Redaction.isSecretName($0.0) }
            || URLComponents(url: master, resolvingAgainstBaseURL: false)?.queryItems?.contains { Redaction.isSecretName($0.name) } == true
    }

    /// The master URL as output and logs may show it.
    public var shown: String { Redaction.url(master.absoluteString) }
}
