import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOFileSystem
import NIOHTTP1
import OriginAPI

/// The way to the venue's other boxes (issue 35, `boxes`): what `RemoteAngleService` asks them
/// and what the set routes call to mark and clip an angle another box serves
/// (`VenueBoxCalling`). One HTTP client for the process's life; every call bounded in time, body included (`withDeadline`), and in what it reads, a
/// clip streamed to its file. Redirects are not followed: the box's answer is its own, never
/// another address it names.
public final class VenueBoxClient: VenueBoxCalling {
    let client: HTTPClient

    public init() {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(2), read: .seconds(5)))
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 4)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func shutdown() async {
        try? await client.shutdown()
    }

    /// What the body of a download's refusal is read up to: a reason, not a file.
    static let refusalLimit = 64 << 10

    public func send(_ method: HTTPRequest.Method, url: String, body: [UInt8]?, authorization: String?, saveTo: String?, limit: Int, timeout: Double) async -> VenueBoxAnswer? {
        let answer = await withDeadline(seconds: timeout) { [self] in
            await call(method, url: url, body: body, authorization: authorization, saveTo: saveTo, limit: limit, timeout: timeout)
        }
        // A file the deadline cut off is not left behind half written.
        if answer == nil, let saveTo { unlink(saveTo) }
        return answer
    }

    private func call(_ method: HTTPRequest.Method, url: String, body: [UInt8]?, authorization: String?, saveTo: String?, limit: Int, timeout: Double) async -> VenueBoxAnswer? {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method.rawValue)
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        do {
            let response = try await client.execute(request, deadline: .now() + .milliseconds(Int64(timeout * 1000)))
            let status = Int(response.status.code)
            guard let saveTo else { return VenueBoxAnswer(status: status, body: Array(buffer: try await response.body.collect(upTo: limit))) }
            guard status == 200 else {
                return VenueBoxAnswer(status: status, body: Array(buffer: try await response.body.collect(upTo: min(limit, Self.refusalLimit))))
            }
            return try await save(response.body, to: saveTo, limit: limit)
                ? VenueBoxAnswer(status: status) : VenueBoxAnswer(status: status, body: Array("(more than \(limit) bytes: not taken)".utf8), tooLarge: true)
        } catch {
            return nil
        }
    }

    /// Streams `body` into a new file at `path`; false (and no file) past `limit` bytes.
    private func save(_ body: HTTPClientResponse.Body, to path: String, limit: Int) async throws -> Bool {
        var written = 0
        do {
            try await FileSystem.shared.withFileHandle(forWritingAt: FilePath(path), options: .newFile(replaceExisting: true)) { handle in
                for try await chunk in body {
                    guard written + chunk.readableBytes <= limit else { throw TooLarge() }
                    try await handle.write(contentsOf: chunk, toAbsoluteOffset: Int64(written))
                    written += chunk.readableBytes
                }
            }
            return true
        } catch {
            unlink(path)
            if error is TooLarge { return false }
            throw error
        }
    }

    struct TooLarge: Error {}
}
