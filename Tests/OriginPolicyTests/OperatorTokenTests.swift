import OriginPolicy
import Testing

/// The one check of an operator's token (`/admin/...`, `/api/sessions`, marker writing), row by row.
@Suite struct OperatorTokenTests {
    static let admin = OperatorToken.admin("s3cret-admin", for: "admin requests")
    static let marking = OperatorToken.analyst("s3cret-analyst", admin: "s3cret-admin")

    struct Row: Sendable, CustomTestStringConvertible {
        let check: OperatorToken
        let header: String?
        /// nil: let through.
        let status: Int?
        let reason: String?
        var testDescription: String { "\(check.realm) \(header ?? "<none>")" }
    }

    static let rows: [Row] = [
        Row(check: admin, header: "Bearer s3cret-admin", status: nil, reason: nil),
        Row(check: admin, header: nil, status: 401, reason: "admin requests need 'Authorization: Bearer <admin.token>'"),
        Row(check: admin, header: "", status: 401, reason: "admin requests need 'Authorization: Bearer <admin.token>'"),
        Row(check: admin, header: "Bearer ", status: 401, reason: "admin requests need 'Authorization: Bearer <admin.token>'"),
        // Another scheme carries no bearer token: told which header to send.
        Row(check: admin, header: "Basic s3cret-admin", status: 401, reason: "admin requests need 'Authorization: Bearer <admin.token>'"),
        Row(check: admin, header: "bearer s3cret-admin", status: 401, reason: "admin requests need 'Authorization: Bearer <admin.token>'"),
        Row(check: admin, header: "s3cret-admin", status: 401, reason: "admin requests need 'Authorization: Bearer <admin.token>'"),
        Row(check: admin, header: "Bearer s3cret-admi", status: 401, reason: "wrong token"),
        Row(check: admin, header: "Bearer s3cret-admin2", status: 401, reason: "wrong token"),
        Row(check: admin, header: "Bearer s3cret-admin\u{0}", status: 401, reason: "wrong token"),
        Row(check: admin, header: "Bearer S3cret-admin", status: 401, reason: "wrong token"),
        Row(check: admin, header: "Bearer  s3cret-admin", status: 401, reason: "wrong token"),
        Row(check: admin, header: "Bearer s3cret-analyst", status: 401, reason: "wrong token"),
        Row(check: marking, header: "Bearer s3cret-analyst", status: nil, reason: nil),
        Row(check: marking, header: "Bearer s3cret-admin", status: nil, reason: nil),
        Row(check: marking, header: "Bearer s3cret", status: 401, reason: "wrong token"),
        Row(check: marking, header: nil, status: 401, reason: "adding or removing markers needs 'Authorization: Bearer <analyst.token>'"),
        // Only the admin token configured: it still marks, and an empty token is no token.
        Row(check: .analyst("", admin: "s3cret-admin"), header: "Bearer s3cret-admin", status: nil, reason: nil),
        Row(check: .analyst("", admin: "s3cret-admin"), header: "Bearer ", status: 401,
            reason: "adding or removing markers needs 'Authorization: Bearer <analyst.token>'"),
        // No token configured: the route is off, whatever the request carries.
        Row(check: .analyst("", admin: ""), header: "Bearer s3cret-analyst", status: 403,
            reason: "marking is off on this server: set analyst.token (or SIDELINE_ANALYST_TOKEN) in its config and restart it"),
        Row(check: .admin("", for: "player sessions"), header: nil, status: 403,
            reason: "player sessions are for the operator: set admin.token (or SIDELINE_ADMIN_TOKEN) and send it as 'Authorization: Bearer'"),
        Row(check: .admin("", for: "player sessions"), header: "Bearer ", status: 403,
            reason: "player sessions are for the operator: set admin.token (or SIDELINE_ADMIN_TOKEN) and send it as 'Authorization: Bearer'"),
    ]

    @Test(arguments: rows) func row(_ row: Row) {
        let refusal = row.check.refusal(authorization: row.header)
        #expect(refusal?.status == row.status)
        #expect(refusal?.reason == row.reason)
        guard let refusal else { return }
        #expect(refusal.audience == .operators, "an operator's refusal is never cached for players")
        // A 401 challenges with the route's realm; a 403 (off) does not challenge.
        #expect(refusal.realm == (refusal.status == 401 ? row.check.realm : nil))
    }

    /// The comparison under the check: equal only when every byte and the length are, so a
    /// token with a byte added, dropped or changed anywhere (first, last, a NUL pad) is refused.
    /// It reads every byte of the longer input with no early exit (the time does not say where
    /// the first difference is); this test holds its answers, not its timing.
    @Test(arguments: [
        ("s3cret", "s3cret", true), ("", "", true),
        ("s3cret", "s3cre", false), ("s3cre", "s3cret", false), ("s3cret", "s3cret\u{0}", false), ("s3cret\u{0}", "s3cret", false),
        ("x3cret", "s3cret", false), ("s3crex", "s3cret", false), ("", "s", false), ("s", "", false),
    ])
    func comparison(a: String, b: String, equal: Bool) {
        #expect(BearerToken.constantTimeEqual(Array(a.utf8), Array(b.utf8)) == equal)
    }
}
