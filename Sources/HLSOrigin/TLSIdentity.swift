import Foundation
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The server's certificate chain and private key (`server.tls`), read from PEM files at start
/// and again on SIGHUP. Every TLS handshake takes the identity current at that moment (NIOSSL's
/// per-handshake context callback), so a renewed certificate is used by the next connection
/// while connections already open keep theirs: nothing is dropped.
///
/// Loading checks what an operator gets wrong at a venue: a missing or unreadable file, a file
/// that is not PEM, a certificate outside its validity dates, a key that is not the
/// certificate's. Each is one `TLSIdentityError` that names the file and what to do. A failed
/// reload keeps the identity in use.
public final class TLSIdentity: Sendable {
    public let certificatePath: String
    public let keyPath: String
    private let current: Mutex<Loaded>

    struct Loaded: Sendable {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        var notValidAfter: Date { Date(timeIntervalSince1970: Double(chain[0].notValidAfter)) }
    }

    /// Loads and checks the files; `now` for the validity dates.
    public init(certificate: String, key: String, now: Date = Date()) throws(TLSIdentityError) {
        certificatePath = certificate
        keyPath = key
        current = Mutex(try Self.load(certificate: certificate, key: key, now: now))
    }

    /// Reads the files again; on success new handshakes use them. On failure nothing changes.
    /// Returns the new certificate's expiry.
    @discardableResult
    public func reload(now: Date = Date()) throws(TLSIdentityError) -> Date {
        let loaded = try Self.load(certificate: certificatePath, key: keyPath, now: now)
        current.withLock { $0 = loaded }
        return loaded.notValidAfter
    }

    /// The name the certificate in use is for: its first subject alternative name, a DNS name
    /// or an IP address (what `server.public_name` is when the config gives none). Nil when it
    /// has neither.
    public var certificateName: String? {
        let leaf = current.withLock { $0.chain[0] }
        for name in leaf._subjectAlternativeNames() {
            let bytes = name.contents.withUnsafeBufferPointer { Array($0) }
            if name.nameType == .dnsName { return String(decoding: bytes, as: UTF8.self) }
            if name.nameType == .ipAddress, bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
            if name.nameType == .ipAddress, bytes.count == 16 {
                return "[" + stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":") + "]"
            }
        }
        return nil
    }

    /// SIGHUP's work (`systemctl reload`): the files read again, the outcome logged. Open
    /// connections keep their certificate, new ones get the new one; a bad pair is logged and
    /// the one in use is kept.
    public func reload(logger: Logger) {
        do {
            let until = try reload()
            logger.notice("SIGHUP: TLS certificate reloaded from \(certificatePath), valid until \(until)")
        } catch {
            logger.error("SIGHUP: kept the TLS certificate in use: \(error)")
        }
    }

    /// When the certificate in use expires.
    public var notValidAfter: Date { current.withLock { $0.notValidAfter } }

    /// The server configuration: the identity loaded now, and a callback that gives every
    /// handshake the identity current when it starts.
    public var serverConfiguration: TLSConfiguration {
        let loaded = current.withLock { $0 }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: loaded.chain.map { .certificate($0) }, privateKey: .privateKey(loaded.key))
        Self.restrict(&configuration)
        configuration.sslContextCallback = { [self] _, promise in
            let now = self.current.withLock { $0 }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = now.chain.map { .certificate($0) }
            override.privateKey = .privateKey(now.key)
            promise.succeed(override)
        }
        return configuration
    }

    /// The TLS 1.2 suites the server offers: forward secret (ECDHE) and authenticated
    /// encryption (AES-GCM, ChaCha20-Poly1305) only, as Mozilla's "intermediate" profile has
    /// them. No CBC or SHA-1 suite, no static RSA key exchange. TLS 1.3's suites are all
    /// AEAD and forward secret; BoringSSL does not let them be chosen.
    public static let tls12CipherSuites = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ]

    /// How long a connection the server closes waits for the client's close_notify before its
    /// socket goes. NIOSSL's default is 5 s: after a flood of clients that read nothing, the
    /// connections closed at the caps kept their sockets that long (hostile drill, 2026-11-27:
    /// 692 server sockets 3 s after 1,280 connections against a cap of 512). A client on the
    /// venue LAN answers within milliseconds; one that does not lost nothing it was reading.
    public static let shutdownTimeout = TimeAmount.seconds(1)

    /// TLS 1.2 and 1.3 only (1.0 and 1.1 are deprecated, RFC 8996), with `tls12CipherSuites`,
    /// and `shutdownTimeout`.
    static func restrict(_ configuration: inout TLSConfiguration) {
        configuration.minimumTLSVersion = .tlsv12
        configuration.cipherSuites = tls12CipherSuites.joined(separator: ":")
        configuration.shutdownTimeout = shutdownTimeout
    }

    static func load(certificate: String, key: String, now: Date) throws(TLSIdentityError) -> Loaded {
        let chain: [NIOSSLCertificate]
        do {
            try readable(certificate, role: "certificate")
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch let error as TLSIdentityError {
            throw error
        } catch {
            throw TLSIdentityError(file: certificate, problem: "is not a PEM certificate chain (\(error))", fix: "give the server's certificate followed by its intermediates, each between BEGIN CERTIFICATE and END CERTIFICATE lines")
        }
        guard let leaf = chain.first else {
            throw TLSIdentityError(file: certificate, problem: "holds no certificate", fix: "give the server's certificate in PEM form")
        }
        let privateKey: NIOSSLPrivateKey
        do {
            try readable(key, role: "key")
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch let error as TLSIdentityError {
            throw error
        } catch {
            throw TLSIdentityError(file: key, problem: "is not a PEM private key (\(error))", fix: "give the unencrypted private key the certificate was made for (BEGIN PRIVATE KEY)")
        }
        let after = Date(timeIntervalSince1970: Double(leaf.notValidAfter)), before = Date(timeIntervalSince1970: Double(leaf.notValidBefore))
        guard after > now else {
            throw TLSIdentityError(file: certificate, problem: "expired on \(ISO8601DateFormatter().string(from: after))", fix: "renew it (Docs/operations.md, \"TLS\"), then start the server or send it SIGHUP")
        }
        guard before <= now else {
            throw TLSIdentityError(file: certificate, problem: "is not valid before \(ISO8601DateFormatter().string(from: before))", fix: "check this machine's clock, or make the certificate again")
        }
        // BoringSSL refuses a key that is not the certificate's when it builds a context.
        do {
            _ = try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey)))
        } catch {
            throw TLSIdentityError(file: key, problem: "is not the private key of \(certificate) (\(error))", fix: "give the key the certificate was made for, or make the certificate again from this key")
        }
        return Loaded(chain: chain, key: privateKey)
    }

    private static func readable(_ path: String, role: String) throws(TLSIdentityError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw TLSIdentityError(file: path, problem: "does not exist", fix: role.hasPrefix("CA") ? "give the venue CA's certificate (ca.pem)" : "check server.tls.\(role) in the config")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw TLSIdentityError(file: path, problem: "cannot be read by this user", fix: "make it readable by the user the server runs as (chmod/chown)")
        }
    }
}

/// Why the TLS identity cannot be used: which file, what is wrong, what to do.
public struct TLSIdentityError: Error, Equatable, CustomStringConvertible {
    public let file: String
    public let problem: String
    public let fix: String
    public var description: String { "TLS: \(file) \(problem): \(fix)" }
}

extension TLSIdentity {
    /// The client side (`push --ca-file`, `mirror --ca-file`): the system's roots and the
    /// venue CA in `caFile`, read and checked now with the same checks as the server's files,
    /// so a wrong file is one clear line at start, not a failed handshake later.
    public static func clientConfiguration(trusting caFile: String) throws(TLSIdentityError) -> TLSConfiguration {
        try readable(caFile, role: "CA (--ca-file)")
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(caFile)
        } catch {
            throw TLSIdentityError(file: caFile, problem: "is not a PEM certificate (\(error))", fix: "give the venue CA's certificate (ca.pem from scripts/venue-certificates.sh)")
        }
        guard !certificates.isEmpty else { throw TLSIdentityError(file: caFile, problem: "holds no certificate", fix: "give the venue CA's certificate (ca.pem)") }
        var configuration = TLSConfiguration.makeClientConfiguration()
        restrict(&configuration)
        configuration.additionalTrustRoots = [.certificates(certificates)]
        return configuration
    }
}
