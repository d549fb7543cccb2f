import ArgumentParser
import Foundation
import OriginAccess
import SidelineConfig
import SidelineCore
import StreamServices

/// `sideline sign <stream>`: a signed master URL a player opens with nothing else, the same
/// kind of URL the page gives a viewer who typed the stream's token.
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print a signed master URL of a stream, valid for a while, that any player opens with nothing else.",
        discussion: """
        Reads access.signing_key from the config (or SIDELINE_SIGNING_KEY). The URL is printed alone \
        on the last line of standard output. Every playlist and segment the player then asks for \
        carries the credential (relative URIs), so no player needs a header or a cookie.
        """
    )

    @Argument(help: "The stream, or the angle set (whose URL opens every angle), as named in the config.")
    var stream: String
    @Option(help: "Config file (YAML) with access.signing_key and the stream.")
    var config: String?
    @Option(help: "How long the URL stays valid: 90s, 30m, 3h, 2d.")
    var expires = "4h"
    @Option(help: "The server's base URL as players reach it, such as https://10.0.0.2:8443 (default: this machine's LAN address and the config's port).")
    var base: String?
    @Option(help: "Limit the URL to one variant of the ladder (the master then lists only it).")
    var variant: String?

    func run() throws {
        do {
            try sign()
        } catch let error as SidelineStartupError {
            FileHandle.standardError.write(Data("sideline sign: \(error.message)\n".utf8))
            throw ExitCode(2)
        }
    }

    private func sign() throws {
        let settings = try SidelineConfiguration.forCommand(config)
        let target = try SigningTarget(stream, variant: variant, base: base, in: settings)
        guard let seconds = ValidityText.seconds(expires) else {
            throw SidelineStartupError(message: "--expires '\(expires)' is not a duration: give a whole number and s, m, h or d, such as 90s, 30m or 3h (at most 366d)")
        }
        let rules = AccessRules.from(settings)
        let base = self.base ?? PlaylistURL.base(host: settings.server.host, port: settings.server.port, tls: settings.server.tls != nil)
        let expiry = Int(Date().timeIntervalSince1970) + seconds
        let url: String
        do {
            url = try rules.signedMasterURL(base: base, stream: stream, expires: expiry, variant: variant)
        } catch {
            throw SidelineStartupError(message: error.description)
        }
        let until = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(expiry)))
        print("\(target.kind) \(stream), valid until \(until)" + (variant.map { ", variant \($0) only" } ?? "")
              + (target.isOpen ? " (no viewer_token on it: it is open, and its plain URL works too)" : ""))
        print(url)
    }
}
