import Foundation
import OriginAccess
import SidelineConfig

extension AccessRules {
    /// The config's viewer tokens, signing key and staff tokens, with the environment's
    /// secrets (SIDELINE_SIGNING_KEY, SIDELINE_ANALYST_TOKEN, SIDELINE_ADMIN_TOKEN) in place of
    /// the file's when set.
    public static func from(_ settings: SidelineConfiguration) -> AccessRules {
        let environment = ProcessInfo.processInfo.environment
        return AccessRules(
            viewerTokens: Dictionary(settings.streams.map { ($0.name, $0.viewerToken) }, uniquingKeysWith: { first, _ in first }),
            signingKey: environment["SIDELINE_SIGNING_KEY"] ?? settings.access.signingKey,
            staffTokens: [environment["SIDELINE_ANALYST_TOKEN"] ?? settings.analyst.token, environment["SIDELINE_ADMIN_TOKEN"] ?? settings.admin.token],
            angleSets: Dictionary(settings.angleSets.map { ($0.name, $0.streams) }, uniquingKeysWith: { first, _ in first }),
            remoteStreams: Set(settings.remoteAngleBoxes.keys)
        )
    }

    /// The sets this box serves that need no credential here, with their angles: a set whose
    /// angle another box keeps private cannot open it (`RemoteAngleReading.privacyMismatch`).
    public func openSets(of settings: SidelineConfiguration) -> [String: [String]] {
        Dictionary(settings.servedAngleSets.filter { !isPrivate($0.name) }.map { ($0.name, $0.streams) }, uniquingKeysWith: { first, _ in first })
    }
}
