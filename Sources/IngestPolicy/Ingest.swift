import OriginPolicy

/// What a remote encoder uploads under `/ingest/{stream}/...` (`IngestRoutes`), in the layout `ffmpeg -f hls -method PUT -master_pl_name master.m3u8` writes:
/// the master, each variant's `index.m3u8`, and its segments. Every name is a plain name, as
/// under `/live/` (`OriginPath`), so no upload can name a file outside the stream's directory.
public enum IngestPath: Equatable, Sendable {
    case master(stream: String)
    case mediaPlaylist(stream: String, variant: String)
    case segment(stream: String, variant: String, name: String)
    /// Title, description and keywords (`StreamMetadata`): `/ingest/{stream}/metadata`.
    case metadata(stream: String)

    public var stream: String {
        switch self {
        case let .master(s), let .mediaPlaylist(s, _), let .segment(s, _, _), let .metadata(s): s
        }
    }

    public static func parse(_ rawPath: String) -> Result<IngestPath, OriginPath.Rejection> {
        let path = rawPath[..<(rawPath.firstIndex(of: "?") ?? rawPath.endIndex)]
        guard path.hasPrefix("/ingest/") else { return .failure(.notFound) }
        var names: [String] = []
        for component in path.dropFirst("/ingest/".count).split(separator: "/", omittingEmptySubsequences: false) {
            switch OriginPath.decode(component) {
            case let .failure(rejection): return .failure(rejection)
            case let .success(name):
                guard OriginPath.isPlainName(name) else { return .failure(.notFound) }
                names.append(name)
            }
        }
        switch names.count {
        case 2 where names[1] == "master.m3u8": return .success(.master(stream: names[0]))
        case 2 where names[1] == "metadata": return .success(.metadata(stream: names[0]))
        case 3 where names[2] == "index.m3u8": return .success(.mediaPlaylist(stream: names[0], variant: names[1]))
        case 3 where names[2].hasSuffix(".ts"): return .success(.segment(stream: names[0], variant: names[1], name: names[2]))
        default: return .failure(.notFound)
        }
    }
}

/// Who may push to which stream: each pushed stream has its own ingest token, sent as
/// `Authorization: Bearer <token>` (which `ffmpeg -headers` can send). No token, or one no
/// stream has: 401 with a challenge. A token of another stream, or a stream that takes no
/// pushes: 403. Tokens are compared in constant time. Pure.
public enum IngestAuthorization {
    public static let realm = "sideline-ingest"

    /// Nil when `authorization` allows pushing to `stream`; `tokens`: every pushed stream's token.
    public static func check(stream: String, authorization: String?, tokens: [String: String]) -> Refusal? {
        guard let expected = tokens[stream], !expected.isEmpty else {
            return Refusal(.forbidden, "stream '\(stream)' does not take pushes: give it an ingest_token in the server's config", audience: .operators)
        }
        guard let given = BearerToken.value(of: authorization) else {
            return Refusal(.unauthorized, "pushing needs 'Authorization: Bearer <ingest_token>'", audience: .operators, realm: realm)
        }
        // Every token is compared, so the time taken says nothing about which one nearly matched.
        let matches = tokens.mapValues { BearerToken.constantTimeEqual(given, Array($0.utf8)) }
        if matches[stream] == true { return nil }
        if matches.values.contains(true) {
            return Refusal(.forbidden, "this ingest token is another stream's; push to that stream, or use stream '\(stream)''s token", audience: .operators)
        }
        return Refusal(.unauthorized, "wrong ingest token", audience: .operators, realm: realm)
    }
}
