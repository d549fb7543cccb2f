import OriginAccess

/// How this box asks another box of the venue for an angle that box keeps private (issue 35,
/// `boxes`): never with a long-lived secret when it can help it. With the venue's signing key,
/// a URL credential signed for that one angle, valid 5 to 10 minutes (the same for 5 minutes, so
/// the other box checks its MAC once, not every 2 s): someone who reads it off the LAN can watch
/// that angle until it expires, and do nothing else. Without a key, the analyst's token (which
/// also marks); never the admin's. Nil when this box has neither: the angle stays `private`
/// here, and the set's master leaves it out. Pure: the time is the caller's.
public struct RemoteAngleCredentials: Sendable {
    public struct Asking: Sendable, Equatable {
        /// `/access/<credential>`, or "" (then `authorization` carries it).
        public var prefix: String
        public var authorization: String?
        public init(prefix: String, authorization: String?) {
            self.prefix = prefix
            self.authorization = authorization
        }
    }

    let rules: AccessRules
    let analystToken: String

    public init(rules: AccessRules, analystToken: String) {
        self.rules = rules
        self.analystToken = analystToken
    }

    /// How to ask for `stream` at `now` (Unix seconds).
    public func asking(for stream: String, now: Double) -> Asking? {
        // The next five-minute mark at least five minutes on.
        if let credential = rules.signedCredential(for: stream, expires: AccessRules.expiry(now: now, validity: 300, roundedTo: 300)) {
            return Asking(prefix: AccessGate.prefix + credential, authorization: nil)
        }
        return analystToken.isEmpty ? nil : Asking(prefix: "", authorization: "Bearer " + analystToken)
    }
}
