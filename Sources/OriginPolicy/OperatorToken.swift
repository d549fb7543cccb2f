/// The one check of an operator's bearer token, for every route that takes one: `/admin/...`
/// (the admin token), `/api/sessions` (the admin token) and marker writing (the analyst or the
/// admin token). Pure: the route turns the refusal into its answer.
public struct OperatorToken: Sendable {
    /// The tokens that let a request through; empty ones (not configured) never match.
    public let tokens: [String]
    /// The `WWW-Authenticate` realm of the 401 (`sideline-admin`, `sideline-analyst`).
    public let realm: String
    /// What a request without a bearer token is told: which header, with which token.
    public let missing: String
    /// What a request is told when no token is configured (403: the route is off), and how to
    /// turn it on.
    public let off: String

    public init(tokens: [String], realm: String, missing: String, off: String) {
        self.tokens = tokens.filter { !$0.isEmpty }
        self.realm = realm
        self.missing = missing
        self.off = off
    }

    /// Nil when `authorization` (the request's `Authorization` header) carries one of the
    /// tokens; otherwise 403 when none is configured, 401 with a challenge when it carries no
    /// bearer token (none, an empty one, another scheme) or a wrong one.
    public func refusal(authorization: String?) -> Refusal? {
        guard !tokens.isEmpty else { return Refusal(.forbidden, off, audience: .operators) }
        guard let given = BearerToken.value(of: authorization) else {
            return Refusal(.unauthorized, missing, audience: .operators, realm: realm)
        }
        // Every token is compared, each in constant time, so the time taken says neither how
        // much of a token matched nor which one.
        var matched = false
        for token in tokens where BearerToken.constantTimeEqual(given, Array(token.utf8)) { matched = true }
        return matched ? nil : Refusal(.unauthorized, "wrong token", audience: .operators, realm: realm)
    }
}

extension OperatorToken {
    /// The admin token's check, for `routes` (named in what a refused request is told).
    public static func admin(_ token: String, for routes: String) -> OperatorToken {
        OperatorToken(tokens: [token], realm: "sideline-admin", missing: "\(routes) need 'Authorization: Bearer <admin.token>'",
                      off: "\(routes) are for the operator: set admin.token (or SIDELINE_ADMIN_TOKEN) and send it as 'Authorization: Bearer'")
    }

    /// Marker writing's check: the analyst token or the admin token.
    public static func analyst(_ analystToken: String, admin adminToken: String) -> OperatorToken {
        OperatorToken(tokens: [analystToken, adminToken], realm: "sideline-analyst",
                      missing: "adding or removing markers needs 'Authorization: Bearer <analyst.token>'",
                      off: "marking is off on this server: set analyst.token (or SIDELINE_ANALYST_TOKEN) in its config and restart it")
    }
}
