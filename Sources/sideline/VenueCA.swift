import Foundation
import NIOSSL
import SidelineCore

/// `--ca-file` of `push` and `mirror`: the venue CA a server's certificate is verified
/// against, beside the system's roots. Read at start, so a wrong file is one clear line
/// before anything runs, not a failed handshake later.
enum VenueCA {
    static func clientConfiguration(caFile: String?) throws -> TLSConfiguration? {
        guard let caFile else { return nil }
        let certificates: [NIOSSLCertificate]
        do {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw SidelineStartupError(message: "--ca-file \(caFile): no such readable file; give the venue CA's certificate (ca.pem from scripts/venue-certificates.sh)")
            }
            certificates = try NIOSSLCertificate.fromPEMFile(caFile)
        } catch let error as SidelineStartupError {
            throw error
        } catch {
            throw SidelineStartupError(message: "--ca-file \(caFile) is not a PEM certificate (\(error)); give the venue CA's certificate (ca.pem)")
        }
        guard !certificates.isEmpty else { throw SidelineStartupError(message: "--ca-file \(caFile) holds no certificate") }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.additionalTrustRoots = [.certificates(certificates)]
        return configuration
    }
}
