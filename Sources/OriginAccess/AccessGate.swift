import OriginPolicy

/// Decides, for one request, whether its credentials cover what it asks for, before any
/// route sees it. Pure: the request target, its `Authorization` header and the time in, a
/// verdict out. The origin runs it on both of its paths (the event-loop fast path and the
/// router), so no request reaches a private stream's resource without passing here.
///
/// The request's stream is read from its path the way the routes read it (percent-decoded
/// components): `/live/<stream>/...`, `/vod/<stream>/...` and `/api/streams/<stream>/...`,
/// and the same of an angle set (`/live/<set>/master.m3u8`, `/api/sets/<set>/...`): a set is
/// private when any angle is, and a credential for the set opens every angle (`AccessRules`).
/// Every other path (the page's files, `/api/streams` itself, health, metrics, admin, ingest)
/// is not a stream's footage and passes; those routes have gates of their own.
///
/// The answers, as Apple's HLS error-handling guidance has them: no credentials, or
/// credentials that match nothing this server knows, are 401 with a `WWW-Authenticate`
/// challenge; valid credentials that do not cover this stream or variant, or have expired,
/// are 403. The reason says which, and never carries a secret.
public struct AccessGate: Sendable {
    /// The path prefix that carries a credential: `/access/<credential>/live/...`.
    public static let prefix = "/access/"
    public static let realm = "sideline-viewer"

    public let rules: AccessRules
    /// Credentials whose MAC was checked: a player sends the same one with every request, so
    /// its HMAC is computed once, not per request (Docs/benchmarks.md, "Viewer access").
    /// Rules never change while the gate lives, so an entry stays true; expiry, stream and
    /// variant are checked on every request.
    private let verified = VerifiedCredentials()
    /// The tokens' bytes, made once: a bearer request compares against every one of them.
    private let staffTokenBytes: [[UInt8]]
    private let viewerTokenBytes: [(stream: String, token: [UInt8])]

    public init(rules: AccessRules) {
        self.rules = rules
        staffTokenBytes = rules.staffTokens.map { Array($0.utf8) }
        viewerTokenBytes = rules.viewerTokens.sorted { $0.key < $1.key }.map { ($0.key, Array($0.value.utf8)) }
    }

    public enum Verdict: Sendable, Equatable {
        /// Go on. `target`: the request target without its access prefix, nil when it had
        /// none (nothing to rewrite). `variant`: the one variant the credential covers, when
        /// it is limited to one (the master is then answered with that variant only).
        case pass(target: String?, variant: String?)
        case refuse(Refusal)
    }

    /// The verdict on a request for `target` (path and query as sent) carrying `authorization`
    /// (the header's value, if any), at `now` (Unix seconds).
    public func check(target: String, authorization: String?, now: Double) -> Verdict {
        judge(target: target, authorization: authorization, now: now).verdict
    }

    /// The verdict with what an answer and an edge cache need beside it.
    public struct Judgement: Sendable, Equatable {
        public var verdict: Verdict
        /// Who may keep the answer: `credentialHolders` for anything of a private stream.
        public var audience: CacheAudience
        /// The canonical target (`RequestTarget`), credential prefix included: what the
        /// origin answers for this request, whatever its spelling. Nil when it cannot be
        /// normalised (the verdict is then its 400).
        public var canonical: String?
        /// `canonical` without the `/access/<credential>` prefix: the resource itself, which
        /// every viewer of it shares (an edge cache's key).
        public var resource: String?
    }

    /// `check`, on the request's canonical target (`RequestTarget.normalise`): every spelling
    /// of a path gets the verdict of its canonical form, and the pass carries that form, so
    /// the routes answer exactly what was judged.
    public func judge(target: String, authorization: String?, now: Double) -> Judgement {
        // Nearly every request on a trusted LAN: nothing private, a path already canonical, no
        // prefix. Decided without a copy of the target (this runs on every request).
        if !rules.isEnabled, !target.utf8.starts(with: Self.prefix.utf8), RequestTarget.isCanonicalTarget(target) {
            return Judgement(verdict: .pass(target: nil, variant: nil), audience: .everyone, canonical: target, resource: target)
        }
        let canonical: RequestTarget
        switch RequestTarget.normalise(target) {
        case let .success(normalised): canonical = normalised
        case let .failure(refusal): return Judgement(verdict: .refuse(refusal), audience: .everyone)
        }
        let text = canonical.target
        // Nearly every request on a trusted LAN: nothing private, no prefix, nothing to do.
        let prefixed = canonical.path.utf8.starts(with: Self.prefix.utf8)
        if !rules.isEnabled && !prefixed {
            return Judgement(verdict: .pass(target: text == target ? nil : text, variant: nil), audience: .everyone, canonical: text, resource: text)
        }
        var credential: Substring?
        var rest = Substring(text)
        if prefixed {
            let afterPrefix = Substring(text.utf8.dropFirst(Self.prefix.utf8.count))
            let end = afterPrefix.utf8.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) ?? afterPrefix.endIndex
            credential = afterPrefix[..<end]
            rest = afterPrefix[end...]
            if rest.isEmpty || rest.utf8.first == UInt8(ascii: "?") { rest = "/" + rest }
        }
        let resource = String(rest)
        let rewritten = prefixed || text != target ? resource : nil
        var judgement = Judgement(verdict: .pass(target: rewritten, variant: nil), audience: .everyone, canonical: text, resource: resource)
        let scope: AccessScope
        switch AccessScope.of(path: rest) {
        case let .success(parsed): scope = parsed
        case let .failure(refusal):
            judgement.verdict = .refuse(refusal)
            return judgement
        }
        guard case let .stream(stream, variant) = scope, rules.isPrivate(stream) else { return judgement }
        judgement.audience = .credentialHolders
        if let credential {
            judgement.verdict = check(credential: credential, stream: stream, variant: variant, now: now, target: rewritten)
        } else if let bearer = BearerToken.value(of: authorization) {
            judgement.verdict = check(bearer: bearer, stream: stream, target: rewritten)
        } else {
            judgement.verdict = .refuse(Self.refusal(.unauthorized, "stream '\(stream)' is private: open the URL the page gives once you type the viewer token (or one from 'sideline sign \(stream)'), or send 'Authorization: Bearer <viewer token>'"))
        }
        return judgement
    }

    /// Whether `authorization` (a bearer token) lets its holder watch `stream`: an open
    /// stream, a staff token, or the stream's viewer token. For `/api/streams`, which lists
    /// what each caller may open.
    public func covers(stream: String, authorization: String?) -> Bool {
        guard rules.isPrivate(stream) else { return true }
        guard let bearer = BearerToken.value(of: authorization) else { return false }
        return (rules.staffTokens + [rules.viewerToken(of: stream)].compactMap { $0 }).map { BearerToken.constantTimeEqual(bearer, Array($0.utf8)) }.contains(true)
    }

    private func check(credential text: Substring, stream: String, variant: String?, now: Double, target: String?) -> Verdict {
        let credential: AccessCredential
        if let known = verified.credential(for: text) {
            credential = known
        } else {
            switch authenticate(text, stream: stream) {
            case let .success(authentic):
                verified.insert(authentic, for: text)
                credential = authentic
            case let .failure(refusal):
                return .refuse(refusal)
            }
        }
        switch credential {
        case let .viewer(owner):
            guard rules.credential(of: owner, covers: stream) else { return .refuse(Self.refusal(.forbidden, "this URL's credential is for '\(owner)', not '\(stream)'")) }
            return .pass(target: target, variant: nil)
        case let .signed(owner, expires, limit):
            guard rules.credential(of: owner, covers: stream) else { return .refuse(Self.refusal(.forbidden, "this URL is signed for '\(owner)', not '\(stream)'")) }
            guard Double(expires) > now else {
                return .refuse(Self.refusal(.forbidden, "this URL expired \(Int(now) - expires) s ago: ask for a new one ('sideline sign \(stream) --expires 3h')"))
            }
            if let limit, let variant, variant != limit {
                return .refuse(Self.refusal(.forbidden, "this URL covers variant '\(limit)' of stream '\(stream)' only, not '\(variant)'"))
            }
            return .pass(target: target, variant: limit)
        }
    }

    /// The credential a URL carries, once its MAC is checked: made from the viewer token of
    /// the stream it names, or signed with the signing key. `stream`: the request's, for the
    /// refusal's wording.
    private func authenticate(_ text: Substring, stream: String) -> Result<AccessCredential, Refusal> {
        guard let parsed = AccessCredential.parse(text) else {
            return .failure(Self.refusal(.unauthorized, "the access credential in this URL is not one this server makes: ask for a new URL (the page, or 'sideline sign \(stream)')"))
        }
        switch parsed.credential {
        case let .viewer(owner):
            guard let token = rules.viewerToken(of: owner), parsed.verify(key: token) else {
                return .failure(Self.refusal(.unauthorized, "this URL's credential does not match stream '\(owner)''s viewer token (it was changed, or the URL was altered): ask for a new URL"))
            }
        case .signed:
            guard let key = rules.signingKey else {
                return .failure(Self.refusal(.unauthorized, "this URL is signed, but signed URLs are off on this server (it has no access.signing_key): ask for a new URL"))
            }
            guard parsed.verify(key: key) else {
                return .failure(Self.refusal(.unauthorized, "this URL's signature does not match (signed with another key, or altered): ask for a new URL"))
            }
        }
        return .success(parsed.credential)
    }

    private func check(bearer: [UInt8], stream: String, target: String?) -> Verdict {
        // Every token is compared, so the time taken does not say which one nearly matched.
        var staff = false
        for token in staffTokenBytes where BearerToken.constantTimeEqual(bearer, token) { staff = true }
        var ownsThis = false, ownsAnother = false
        for (owner, token) in viewerTokenBytes where BearerToken.constantTimeEqual(bearer, token) {
            if owner == stream { ownsThis = true } else { ownsAnother = true }
        }
        // A set (no token of its own): the one token its private angles share.
        if rules.angleSets[stream] != nil, let shared = rules.viewerToken(of: stream) {
            ownsThis = BearerToken.constantTimeEqual(bearer, Array(shared.utf8))
        }
        if staff || ownsThis { return .pass(target: target, variant: nil) }
        if ownsAnother { return .refuse(Self.refusal(.forbidden, "this viewer token is for another stream, not '\(stream)'")) }
        return .refuse(Self.refusal(.unauthorized, "wrong token for stream '\(stream)'"))
    }

    /// Access refusals are never stored by a cache: the next request may carry a credential.
    static func refusal(_ kind: Refusal.Kind, _ reason: String) -> Refusal {
        Refusal(kind, reason, cache: .noStore, realm: kind == .unauthorized ? realm : nil)
    }
}
