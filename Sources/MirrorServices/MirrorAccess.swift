import OriginAccess
import SidelineCore

/// Who may watch what a mirror serves. A mirror of a private stream is private too: it checks
/// viewers with the same rules as the origin (the `access` section and the stream's
/// `viewer_token` from the config it is given), so a player that fails over to it with the
/// credential it has keeps playing, and nobody without one is served. Serving a private
/// upstream to anyone needs `--serve-openly`, said on purpose.
public enum MirrorAccess {
    /// The rules the mirror's origin checks viewers with; nil: open (no check).
    /// `upstreamIsPrivate`: `MirrorUpstream.isPrivate`. `rules`: the config's. `stream`: the
    /// local stream name.
    public static func rules(upstreamIsPrivate: Bool, stream: String, rules: AccessRules, serveOpenly: Bool) throws(SidelineStartupError) -> AccessRules? {
        // The config makes the stream private: checked, whatever the upstream is.
        if rules.isPrivate(stream) { return rules }
        guard upstreamIsPrivate else { return nil }
        if serveOpenly { return nil }
        throw SidelineStartupError(message: """
            the upstream is private (the mirror reaches it with a credential), but the config gives stream '\(stream)' no viewer_token, \
            so the mirror would serve it to anyone who asks. Give --config the origin's config (its streams' viewer_token and access.signing_key: \
            players that fail over keep their credential), or --serve-openly to serve it without a check on purpose
            """)
    }
}
