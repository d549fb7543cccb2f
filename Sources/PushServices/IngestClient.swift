import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import NIOHTTP1
import StreamPushing

/// `sideline push`'s HTTP client for a server's ingest (`/ingest/<stream>/...`): PUTs with the
/// stream's bearer token over kept-alive connections (one TCP handshake for the whole run
/// while the link holds), and answers as plain values: the status (nil when the server could
/// not be reached or did not answer in time) and its reason. The uploader (`PushUploader`)
/// times each upload on its own clock.
public final class IngestClient: IngestUploading {
    public let base: URL
    private let authorization: String
    private let client: HTTPClient

    /// `base`: `http(s)://<server>/ingest/<stream>`; `token`: the stream's ingest_token;
    /// `tls`: how an https server's certificate is verified (the system's roots, and the venue
    /// CA when one is given); nil for the defaults.
    public init(base: URL, token: String, tls: TLSConfiguration? = nil) {
        self.base = base
        authorization = "Bearer \(token)"
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, timeout: .init(connect: .seconds(3)))
        // One upload at a time, in order: one connection, kept open between uploads, and let
        // go before a Sideline server's idle timeout (20 s) closes it under a new request.
        configuration.connectionPool = .init(idleTimeout: .seconds(15), concurrentHTTP1ConnectionsPerHostSoftLimit: 1)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// PUTs `body` to `path` under the base, within `timeout` seconds.
    public func put(_ path: String, body: [UInt8], contentType: String, timeout: Double) async -> IngestAnswer {
        let url = base.absoluteString + "/" + path
        var request = HTTPClientRequest(url: url)
        request.method = .PUT
        request.headers.add(name: "Authorization", value: authorization)
        request.headers.add(name: "Content-Type", value: contentType)
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, deadline: .now() + .milliseconds(Int64(timeout * 1000)))
            let text = try await response.body.collect(upTo: 64 << 10)
            return IngestAnswer(status: Int(response.status.code), reason: String(buffer: text).trimmingCharacters(in: .whitespacesAndNewlines))
        } catch is CancellationError {
            return IngestAnswer(status: nil, reason: "cancelled")
        } catch {
            return IngestAnswer(status: nil, reason: "\(error)")
        }
    }

    public func shutdown() async {
        try? await client.shutdown()
    }
}
