import ArgumentParser
import AsyncHTTPClient
import Foundation
import HLSOrigin
import NIOCore
import NIOHTTP1
import SidelineConfig
import SidelineCore

/// `sideline admin end|remove <stream>`: the operator's commands, sent to a running server's
/// admin API with its bearer token.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Tell a running server to end or remove a stream (its admin API).",
        discussion: """
        The token is taken from --token, else the environment variable SIDELINE_ADMIN_TOKEN, else \
        admin.token of the config. `end` writes the stream's last segment and EXT-X-ENDLIST (its \
        playlists answer 200 from then on); `remove` makes every URL of the stream answer 410, also \
        after a restart, and deletes its recording.
        """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case end, remove
    }

    @Argument(help: "end or remove.")
    var action: Action
    @Argument(help: "The stream's name.")
    var stream: String
    @Option(help: "Config file of the server (for its port and admin token).")
    var config: String?
    @Option(help: "The server's address; default http://127.0.0.1:<server.port of the config>, or https://<server.public_name or 127.0.0.1>:<port> when the config has server.tls.")
    var server: String?
    @Option(name: .customLong("ca-file"), help: "The venue CA (PEM) an https server's certificate is verified against, besides the system's roots.")
    var caFile: String?
    @Option(help: "The admin token.")
    var token: String?

    func run() async throws {
        try await reportingStartupErrors {
            let settings = try SidelineConfiguration.forCommand(config)
            let secret = token ?? ProcessInfo.processInfo.environment["SIDELINE_ADMIN_TOKEN"] ?? settings.admin.token
            guard !secret.isEmpty else {
                throw SidelineStartupError(message: "no admin token: pass --token, set SIDELINE_ADMIN_TOKEN, or set admin.token in the config given with --config")
            }
            let base = server ?? (settings.server.tls == nil ? "http://127.0.0.1:\(settings.server.port)" : "https://\(settings.server.publicName ?? "127.0.0.1"):\(settings.server.port)")
            let tls = try caFile.map { file in try startupError { try TLSIdentity.clientConfiguration(trusting: file) } }
            guard StoreNames.isUsable(stream), let url = URL(string: base + "/admin/streams/\(stream)" + (action == .end ? "/end" : "")) else {
                throw SidelineStartupError(message: "'\(base)' and '\(stream)' do not make a URL; give the server as http://host:port (https:// with --ca-file for a TLS server) and a stream name")
            }
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = action == .end ? .POST : .DELETE
            request.headers.add(name: "Authorization", value: "Bearer \(secret)")
            // The venue CA, when given, in a client of its own (the shared one trusts the system's roots only).
            let client = tls.map { HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: $0)) }
            let answer: Result<(Int, String), any Error>
            do {
                let response = try await (client ?? HTTPClient.shared).execute(request, timeout: .seconds(30))
                answer = .success((Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)).trimmingCharacters(in: .whitespacesAndNewlines)))
            } catch {
                answer = .failure(error)
            }
            try? await client?.shutdown()
            let (status, text): (Int, String)
            switch answer {
            case let .success(got): (status, text) = got
            case let .failure(error):
                let hint = base.hasPrefix("https://") && caFile == nil ? " For a server with a venue certificate, give its CA with --ca-file." : ""
                throw SidelineStartupError(message: "cannot reach the server at \(base): \(error). Is sideline serve running there?\(hint)")
            }
            guard status == 202 else {
                let hint = status == 404 && text.isEmpty ? " (is the admin API on? it needs admin.token in the server's config)" : ""
                throw SidelineStartupError(message: "the server answered \(status): \(text)\(hint)")
            }
            print(text)
        }
    }
}
