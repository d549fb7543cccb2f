/// Who may watch what, as the config says: the private streams and their viewer tokens, the
/// key signed URLs are made with, and the staff tokens (analyst, admin) that watch every
/// stream. Built once at start; plain values.
public struct AccessRules: Sendable, Equatable {
    /// `streams[].viewer_token` of every private stream. A stream not listed is open.
    public var viewerTokens: [String: String]
    /// `access.signing_key`: nil turns signed URLs off.
    public var signingKey: String?
    /// The analyst and admin tokens: staff watch every stream with them.
    public var staffTokens: [String]

    /// `angle_sets`: each set's angles. A set is private when any of its angles is, and one
    /// credential made for the set opens the set's master and every angle.
    public var angleSets: [String: [String]]
    /// The streams other boxes of the venue encode (`boxes`): this box does not know their
    /// viewer tokens, so a set holding one has no token all its angles are known to share.
    public var remoteStreams: Set<String>

    public init(viewerTokens: [String: String] = [:], signingKey: String? = nil, staffTokens: [String] = [], angleSets: [String: [String]] = [:],
                remoteStreams: Set<String> = []) {
        self.viewerTokens = viewerTokens.filter { !$0.value.isEmpty }
        self.signingKey = signingKey.flatMap { $0.isEmpty ? nil : $0 }
        self.staffTokens = staffTokens.filter { !$0.isEmpty }
        self.angleSets = angleSets
        self.remoteStreams = remoteStreams
    }

    /// Off on a trusted LAN (the default): no stream is private, nothing is checked.
    public var isEnabled: Bool { !viewerTokens.isEmpty }

    /// Whether a stream, or a set (any of whose angles is private), needs a credential.
    public func isPrivate(_ name: String) -> Bool {
        viewerTokens[name] != nil || angleSets[name]?.contains { viewerTokens[$0] != nil } == true
    }

    /// Whether a credential made for `owner` (a stream or a set) opens `name`: its own, or,
    /// for a set's, the set and every one of its angles. One angle's opens no other.
    public func credential(of owner: String, covers name: String) -> Bool {
        owner == name || angleSets[owner]?.contains(name) == true
    }

    /// The viewer token that opens `name`: a stream's own; for a set, the one token all of its
    /// private angles share, nil when they have different ones (a holder of one angle's token
    /// must not open another's: such a set opens whole with a signed URL or a staff token).
    /// Nil for a set with an angle another box encodes: that angle's token is not known here,
    /// so no token can be known to be the set's (one angle's would open the angle on the other
    /// box through the set's signed credential).
    public func viewerToken(of name: String) -> String? {
        if let token = viewerTokens[name] { return token }
        guard let angles = angleSets[name], !angles.contains(where: remoteStreams.contains) else { return nil }
        let tokens = Set(angles.compactMap { viewerTokens[$0] })
        return tokens.count == 1 ? tokens.first : nil
    }

    /// How long a URL the page hands out stays valid, when it is signed: a match with extra
    /// time and the analysis after it. `sideline sign` uses the same default.
    public static let defaultValidity = 4 * 3600

    /// A signed credential for `stream` valid until `expires` (Unix seconds), limited to
    /// `variant` when given; nil without a signing key.
    public func signedCredential(for stream: String, expires: Int, variant: String? = nil) -> String? {
        signingKey.map { AccessCredential.signed(stream: stream, expires: expires, variant: variant).text(key: $0) }
    }

    /// The credential a viewer holding `stream`'s token is given for its URLs (the page's):
    /// signed for `defaultValidity` when a signing key is configured, made from the viewer
    /// token otherwise. Nil for an open stream, whose URLs need none.
    public func viewerCredential(for stream: String, now: Double) -> String? {
        guard isPrivate(stream) else { return nil }
        let token = viewerToken(of: stream)
        // Rounded up to the next ten minutes, so the URLs the page polls for stay the same for
        // ten minutes instead of changing every second.
        let expires = Self.expiry(now: now, validity: Self.defaultValidity, roundedTo: 600)
        return signedCredential(for: stream, expires: expires) ?? token.map { AccessCredential.viewer(stream: stream).text(key: $0) }
    }

    /// An expiry (Unix seconds) at least `validity` seconds after `now`, rounded up to a multiple
    /// of `step`: one credential for `step` seconds, so URLs made meanwhile are the same (and a
    /// server checks their MAC once). A clock that is not a number counts as 0, not a trap.
    public static func expiry(now: Double, validity: Int, roundedTo step: Int) -> Int {
        let seconds = now.isFinite ? Int(max(0, min(now, 1e15))) : 0
        return (seconds + validity + step - 1) / step * step
    }

    /// `path` (which starts with '/') under `/access/<credential>`, or as it is without one.
    public static func url(_ path: String, credential: String?) -> String {
        credential.map { AccessGate.prefix + $0 + path } ?? path
    }
}

extension AccessRules {
    /// Why `sideline sign` cannot make a URL, in words that say what to change.
    public enum SigningError: Error, Equatable, CustomStringConvertible {
        case noSigningKey
        case badBase(String)

        public var description: String {
            switch self {
            case .noSigningKey: "signing needs a key: set access.signing_key in the config (or SIDELINE_SIGNING_KEY), e.g. to the output of 'openssl rand -hex 16', and restart the server with it"
            case let .badBase(base): "--base '\(base)' is not a server's base URL: give http:// or https:// with a host and optional port, such as https://10.0.0.2:8443"
            }
        }
    }

    /// The master URL of `stream` signed until `expires` (Unix seconds), under `base`
    /// (`https://host:port`): what a player opens with nothing else.
    public func signedMasterURL(base: String, stream: String, expires: Int, variant: String? = nil) throws(SigningError) -> String {
        guard let credential = signedCredential(for: stream, expires: expires, variant: variant) else { throw .noSigningKey }
        var trimmed = Substring(base)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let scheme = trimmed.hasPrefix("https://") ? "https://" : trimmed.hasPrefix("http://") ? "http://" : nil
        guard let scheme else { throw .badBase(base) }
        let authority = trimmed.dropFirst(scheme.count)
        guard !authority.isEmpty, !authority.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" || $0 == "@" || $0.isWhitespace }) else { throw .badBase(base) }
        return "\(trimmed)\(AccessGate.prefix)\(credential)/live/\(stream)/master.m3u8"
    }
}
