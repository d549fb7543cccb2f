import SidelineConfig
import Testing

/// Every token and key has the same minimum strength, checked at start, and an error names
/// the key without showing the secret.
@Suite struct SecretStrengthTests {
    static let weak = ["short", "aaaaaaaaaaaaaaaa", "abababababababab", "0123456701234567x y z"]

    @Test(arguments: ["admin.token", "analyst.token", "access.signing_key", "stream.viewer_token"])
    func aWeakSecretIsRefusedByNameAndNotShown(key: String) throws {
        for secret in Self.weak {
            let parts = key.split(separator: ".")
            let yaml = "\(parts[0]):\n  \(parts[1]): '\(secret)'\n"
            do {
                _ = try SidelineConfiguration.parse(yaml: yaml)
                Issue.record("\(key): '\(secret)' was accepted")
            } catch {
                guard case let .invalidValue(_, named, _, expected) = error else { Issue.record("\(error)"); continue }
                #expect(named == key && expected.contains("at least 8 of them different"))
                #expect(!error.description.contains(secret) && error.description.contains("<redacted>"), "\(error)")
            }
        }
    }

    @Test func strongSecretsAndOffAreAccepted() throws {
        let config = try SidelineConfiguration.parse(yaml: "admin: {token: 4f1c0e8a9b2d7c6e5f3a1b0c9d8e7f6a}\nanalyst: {token: \"\"}\n")
        #expect(config.admin.token == "4f1c0e8a9b2d7c6e5f3a1b0c9d8e7f6a" && config.analyst.token.isEmpty)
    }

    @Test func theEnvironmentsSecretsAreCheckedToo() {
        #expect(throws: Never.self) { try SidelineConfiguration.checkEnvironmentSecrets(["SIDELINE_ADMIN_TOKEN": "4f1c0e8a9b2d7c6e", "HOME": "/root"]) }
        do {
            try SidelineConfiguration.checkEnvironmentSecrets(["SIDELINE_ANALYST_TOKEN": "weak-secret"])
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("SIDELINE_ANALYST_TOKEN") && !error.description.contains("weak-secret"), "\(error)")
        }
    }
}
