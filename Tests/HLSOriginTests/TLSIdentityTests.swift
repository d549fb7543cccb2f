import Foundation
import HLSOrigin
import Hummingbird
import Logging
import OriginRegistry
import OriginState
import TestSupport
import Testing

/// `server.tls` with certificates made by `scripts/venue-certificates.sh` (openssl), as
/// Docs/operations.md tells an operator to make them: one clear error for each thing an
/// operator gets wrong, a reload that keeps what works, and HTTPS that curl verifies against
/// the venue CA, before and after a reload on the same server.
@Suite struct TLSIdentityTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/venue-certificates.sh").path

    /// Runs a program to its end on a thread of its own: blocking a thread of Swift
    /// concurrency's small shared pool starves every other test's server (seen in CI: another
    /// suite's server answered nothing for 20 s while these waited for openssl and curl).
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await LoopbackSockets.onOwnThread { try runBlocking(arguments) }
    }

    static func runBlocking(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0].hasPrefix("/") ? arguments[0] : "/usr/bin/env")
        process.arguments = arguments[0].hasPrefix("/") ? Array(arguments.dropFirst()) : arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// A venue CA and a server certificate for 127.0.0.1, in a new directory.
    static func certificates(days: Int = 397) async throws -> String {
        let directory = NSTemporaryDirectory() + "sideline-tls-\(UUID().uuidString.prefix(8))"
        let made = try await run([script, directory, "127.0.0.1", "localhost", "--days", String(days)])
        #expect(made.status == 0, "\(made.output)")
        return directory
    }

    func error(certificate: String, key: String, now: Date = Date()) -> TLSIdentityError? {
        do {
            _ = try TLSIdentity(certificate: certificate, key: key, now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test func eachMistakeIsOneErrorThatNamesTheFile() async throws {
        let dir = try await Self.certificates()
        #expect(error(certificate: "\(dir)/server.pem", key: "\(dir)/server.key") == nil)
        let missing = try #require(error(certificate: "\(dir)/nope.pem", key: "\(dir)/server.key"))
        #expect(missing.file == "\(dir)/nope.pem" && missing.problem == "does not exist")
        try "not a certificate\n".write(toFile: "\(dir)/junk.pem", atomically: true, encoding: .utf8)
        #expect(error(certificate: "\(dir)/junk.pem", key: "\(dir)/server.key")?.problem.hasPrefix("is not a PEM certificate") == true)
        #expect(error(certificate: "\(dir)/server.pem", key: "\(dir)/junk.pem")?.problem.hasPrefix("is not a PEM private key") == true)
        // Expired and not yet valid, by the clock the identity is given.
        let expired = try #require(error(certificate: "\(dir)/server.pem", key: "\(dir)/server.key", now: Date().addingTimeInterval(400 * 86400)))
        #expect(expired.problem.hasPrefix("expired on ") && expired.fix.contains("SIGHUP"))
        #expect(error(certificate: "\(dir)/server.pem", key: "\(dir)/server.key", now: Date().addingTimeInterval(-86400))?.problem.hasPrefix("is not valid before") == true)
        // The CA's key is not the server certificate's.
        let mismatch = try #require(error(certificate: "\(dir)/server.pem", key: "\(dir)/ca.key"))
        #expect(mismatch.file == "\(dir)/ca.key" && mismatch.problem.hasPrefix("is not the private key of \(dir)/server.pem"))
        #expect("\(mismatch)".hasPrefix("TLS: \(dir)/ca.key is not the private key"))
    }

    @Test func aFailedReloadKeepsTheIdentityInUse() async throws {
        let dir = try await Self.certificates(days: 30)
        let identity = try TLSIdentity(certificate: "\(dir)/server.pem", key: "\(dir)/server.key")
        let before = identity.notValidAfter
        // Renewed with a longer validity: the reload takes it.
        _ = try await Self.run([Self.script, dir, "127.0.0.1", "--days", "90"])
        let renewed = try identity.reload()
        #expect(renewed > before.addingTimeInterval(50 * 86400) && identity.notValidAfter == renewed)
        // A half-written renewal (the key replaced, not the certificate): refused, and kept.
        try FileManager.default.removeItem(atPath: "\(dir)/server.key")
        try FileManager.default.copyItem(atPath: "\(dir)/ca.key", toPath: "\(dir)/server.key")
        #expect(throws: TLSIdentityError.self) { try identity.reload() }
        #expect(identity.notValidAfter == renewed)
    }

    @Test func httpsIsVerifiedAgainstTheVenueCAAndAReloadServesTheNewCertificate() async throws {
        let dir = try await Self.certificates(days: 30)
        let identity = try TLSIdentity(certificate: "\(dir)/server.pem", key: "\(dir)/server.key")
        let registry = StreamRegistry()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        try await ServerUnderTest.with({ onRunning in
            OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger, tls: identity, onServerRunning: onRunning)
        }) { port in
            let url = "https://127.0.0.1:\(port)/healthz"
            func expiry() async throws -> String {
                // The certificate the server presents, as openssl reads it.
                let shown = try await Self.run(["sh", "-c", "openssl s_client -connect 127.0.0.1:\(port) -CAfile \(dir)/ca.pem </dev/null 2>/dev/null | openssl x509 -noout -enddate"])
                return shown.output.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let verified = try await Self.run(["curl", "-sS", "--cacert", "\(dir)/ca.pem", url])
            #expect(verified.status == 0 && verified.output == "ok\n", "\(verified.output)")
            let unverified = try await Self.run(["curl", "-sS", url])
            #expect(unverified.status == 60, "without the venue CA, curl refuses the certificate: \(unverified.output)")
            let first = try await expiry()
            _ = try await Self.run([Self.script, dir, "127.0.0.1", "--days", "90"])
            try identity.reload()
            let second = try await expiry()
            #expect(first.hasPrefix("notAfter=") && second.hasPrefix("notAfter=") && first != second, "\(first) then \(second)")
            #expect(try await Self.run(["curl", "-sS", "--cacert", "\(dir)/ca.pem", url]).output == "ok\n")
        }
    }
    /// Whether openssl completes a handshake with `arguments` (its version and cipher
    /// options). `@SECLEVEL=0` lets this openssl offer TLS 1.0, 1.1 and CBC suites at all, so a
    /// refusal is the server's, not the client's own policy.
    static func handshakes(port: Int, ca: String, _ arguments: String) async throws -> Bool {
        let shown = try await run(["sh", "-c", "openssl s_client -connect 127.0.0.1:\(port) -CAfile \(ca) \(arguments) </dev/null 2>&1"])
        return shown.status == 0 && !shown.output.contains("Cipher is (NONE)")
    }

    @Test func onlyTLS12And13WithForwardSecretAEADSuitesAreAccepted() async throws {
        let dir = try await Self.certificates()
        let identity = try TLSIdentity(certificate: "\(dir)/server.pem", key: "\(dir)/server.key")
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        try await ServerUnderTest.with({ onRunning in
            OriginServer.makeApplication(registry: StreamRegistry(), host: "127.0.0.1", port: 0, logger: logger, tls: identity, onServerRunning: onRunning)
        }) { (port: Int) async throws in
            let ca = "\(dir)/ca.pem"
            let weak = "-cipher 'DEFAULT:@SECLEVEL=0'"
            #expect(try await Self.handshakes(port: port, ca: ca, "-tls1_3"))
            #expect(try await Self.handshakes(port: port, ca: ca, "-tls1_2"))
            // The venue certificate's key is ECDSA (scripts/venue-certificates.sh).
            #expect(try await Self.handshakes(port: port, ca: ca, "-tls1_2 -cipher ECDHE-ECDSA-CHACHA20-POLY1305"))
            #expect(try await !Self.handshakes(port: port, ca: ca, "-tls1_1 \(weak)"), "TLS 1.1 refused")
            #expect(try await !Self.handshakes(port: port, ca: ca, "-tls1 \(weak)"), "TLS 1.0 refused")
            // The CBC-SHA1 suite the issue saw (ECDSA's and RSA's), and CBC-SHA256: refused over TLS 1.2.
            #expect(try await !Self.handshakes(port: port, ca: ca, "-tls1_2 -cipher 'ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES256-SHA:@SECLEVEL=0'"))
            #expect(try await !Self.handshakes(port: port, ca: ca, "-tls1_2 -cipher 'ECDHE-ECDSA-AES128-SHA256:@SECLEVEL=0'"))
            #expect(identity.certificateName == "127.0.0.1")
        }
    }
}
