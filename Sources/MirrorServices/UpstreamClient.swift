import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTPCompression
import NIOSSL
import NIOHTTP1
import SidelineCore
import StreamMirroring
import Synchronization

/// The mirror's HTTP client for its upstream: sends the configured headers with every request,
/// asks for gzip on playlists (Docs/benchmarks.md, "Playlist compression"), and records
/// the configured response headers of every answer, one line each, for diagnosing what a
/// proxy between the two does. No credential is written: URLs and header values go through
/// `Redaction`.
public final class UpstreamClient: Sendable {
    struct Answer: Sendable {
        let status: Int
        let body: ByteBuffer
        /// Content-Length as announced (nil for a chunked answer).
        let announcedLength: Int?
    }

    /// The upstream could not be reached or did not answer in time.
    struct Unreachable: Error, CustomStringConvertible {
        let url: String
        let reason: String
        // The URL may carry the upstream credential (`/access/<credential>/`): never shown.
        var description: String { "\(Redaction.url(url)): \(reason)" }
    }

    private let client: HTTPClient
    private let headers: [(String, String)]
    private let recordedHeaders: [String]
    private let responseLog: Mutex<FileHandle?>

    /// `responseLogPath`: where recorded headers go (appended); only opened when
    /// `recordedHeaders` is not empty.
    /// `tls`: how an https upstream's certificate is verified (the system's roots, and the venue
    /// CA when one is given); nil for the defaults.
    public init(headers: [(String, String)], recordedHeaders: [String], responseLogPath: String, tls: TLSConfiguration? = nil) throws {
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, timeout: .init(connect: .seconds(2)), decompression: .enabled(limit: .ratio(200)))
        // A mirror follows one server: a few connections are plenty, and keeping them open
        // saves a TCP handshake per reload.
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 8)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.headers = headers
        self.recordedHeaders = recordedHeaders
        if recordedHeaders.isEmpty {
            responseLog = Mutex(nil)
        } else {
            if !FileManager.default.fileExists(atPath: responseLogPath) {
                _ = FileManager.default.createFile(atPath: responseLogPath, contents: nil)
            }
            guard let handle = FileHandle(forWritingAtPath: responseLogPath) else {
                throw SidelineStartupError(message: "cannot open \(responseLogPath) to record upstream response headers; check that the data directory is writable")
            }
            handle.seekToEndOfFile()
            responseLog = Mutex(handle)
        }
    }

    /// GETs `url`; the body is read whole (up to `limit` bytes) within `timeout` seconds
    /// (`withDeadline`: AsyncHTTPClient's own deadline ends once the headers are in).
    func get(_ url: String, gzip: Bool, timeout: Double, limit: Int = 256 << 20) async throws -> Answer {
        let outcome: Result<Answer, any Error>? = await withDeadline(seconds: timeout) { [self] in
            do { return .success(try await fetch(url, gzip: gzip, timeout: timeout, limit: limit)) } catch { return .failure(error) }
        }
        guard let outcome else { throw Unreachable(url: url, reason: "no whole answer within \(timeout) s") }
        return try outcome.get()
    }

    private func fetch(_ url: String, gzip: Bool, timeout: Double, limit: Int) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if gzip { request.headers.replaceOrAdd(name: "Accept-Encoding", value: "gzip") }
        do {
            let deadline = NIODeadline.now() + .milliseconds(Int64(timeout * 1000))
            let response = try await client.execute(request, deadline: deadline)
            // Only meaningful when the body arrives as sent (segments are never compressed).
            let announced = response.headers.first(name: "Content-Encoding") == nil ? response.headers.first(name: "Content-Length").flatMap { Int($0) } : nil
            let body = try await response.body.collect(upTo: limit)
            record(url: url, status: Int(response.status.code), headers: response.headers)
            return Answer(status: Int(response.status.code), body: body, announcedLength: announced)
        } catch let error as HTTPClientError {
            throw Unreachable(url: url, reason: "\(error)")
        } catch let error as NIOTooManyBytesError {
            throw Unreachable(url: url, reason: "answer larger than \(limit) bytes (\(error))")
        } catch let error as CancellationError {
            throw error
        } catch {
            throw Unreachable(url: url, reason: "\(error)")
        }
    }

    /// One JSON object per line: when, what, the status and the recorded headers (absent ones
    /// left out), so `jq` or a spreadsheet can read the log.
    private func record(url: String, status: Int, headers: HTTPHeaders) {
        guard !recordedHeaders.isEmpty else { return }
        var fields: [String: String] = [:]
        for name in recordedHeaders where headers.contains(name: name) {
            fields[name] = headers[name].map { Redaction.header(name: name, value: $0) }.joined(separator: ", ")
        }
        let entry: [String: Any] = ["time": ISO8601DateFormatter().string(from: Date()), "url": Redaction.url(url), "status": status, "headers": fields]
        guard var line = try? JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        line.append(0x0A)
        responseLog.withLock { $0?.write(line) }
    }

    public func shutdown() async {
        try? await client.shutdown()
        responseLog.withLock { try? $0?.close() }
    }
}

extension UpstreamClient: UpstreamFetching {
    public func get(_ url: URL, gzip: Bool, timeout: Double) async throws -> UpstreamAnswer {
        let answer: Answer = try await get(url.absoluteString, gzip: gzip, timeout: timeout)
        return UpstreamAnswer(status: answer.status, body: Array(answer.body.readableBytesView), announcedLength: answer.announcedLength)
    }
}
