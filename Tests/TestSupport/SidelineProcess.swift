import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A `sideline serve` started by a test: its stderr goes to a file the test can read, and the
/// test stops it by PID with the signal it wants.
public final class SidelineProcess: @unchecked Sendable {
    public let process = Process()
    public let logPath: String

    /// Starts `sideline <command>` (serve unless given) with `arguments`, and `environment` on
    /// top of this process's own.
    public init(command: String = "serve", arguments: [String], environment: [String: String] = [:]) throws {
        let directory = try makeTemporaryDirectory("serve-log")
        logPath = directory + "/stderr.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: Repository.sidelineExecutable)
        process.arguments = [command] + arguments
        process.currentDirectoryURL = Repository.root
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = process.standardError
        process.standardInput = FileHandle.nullDevice
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        try process.run()
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The master playlist URL the server printed, once it is listening.
    public func waitForURL(timeout: Double = 60) async throws -> URL {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = log.split(separator: "\n").first(where: { $0.contains("Open: ") }),
               let url = URL(string: String(line[line.range(of: "Open: ")!.upperBound...]).trimmingCharacters(in: .whitespaces)) {
                return url
            }
            guard process.isRunning else { throw Failure(message: "sideline exited with \(process.terminationStatus): \(log)") }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure(message: "sideline printed no URL within \(timeout) s: \(log)")
    }

    /// Waits for the process to exit by itself; returns its exit status.
    public func waitForExit(timeout: Double = 60) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            guard Date() < deadline else { throw Failure(message: "sideline did not exit within \(timeout) s: \(log)") }
            try await Task.sleep(for: .milliseconds(50))
        }
        return process.terminationStatus
    }

    /// Sends `signal` and waits for the process to exit; returns its exit status.
    @discardableResult
    public func stop(signal: Int32 = SIGINT, timeout: Double = 30) async throws -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw Failure(message: "sideline did not exit within \(timeout) s of signal \(signal): \(log)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}

/// A plain HTTP GET or HEAD, for status codes and headers.
public struct HTTPResult: Sendable {
    public let status: Int
    public let headers: [String: String]
    public let body: Data
}

/// The tests' HTTP client. Its pool drops a connection idle for 10 s, well before the server's
/// `server.idle_timeout` (20 s) closes it: with AsyncHTTPClient's 60 s, a request sent after a
/// 20 s wait reused a connection the server was closing at that moment, and failed with "I/O on
/// closed channel" (CI on a clean clone, 2026-11-29 00:41, `PushEndToEndTests`, which waits 20 s
/// between two requests).
private let testClient: HTTPClient = {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(10))
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}()

/// By AsyncHTTPClient, not URLSession: FoundationNetworking's URLSession can crash the whole test
/// process in libdispatch when a server dies under an open connection (swift-corelibs-foundation
/// #4791), and the crash-recovery tests kill servers on purpose. It sends no Accept-Encoding unless
/// asked, so bodies arrive as the server stores them.
public func http(_ url: URL, method: String = "GET", body: String? = nil, bytes: [UInt8]? = nil, headers: [String: String] = [:], timeout: Double = 60) async throws -> HTTPResult {
    var request = HTTPClientRequest(url: url.absoluteString)
    request.method = HTTPMethod(rawValue: method)
    if let body { request.body = .bytes(ByteBuffer(string: body)) }
    if let bytes { request.body = .bytes(ByteBuffer(bytes: bytes)) }
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await testClient.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
    let body = try await response.body.collect(upTo: 512 << 20)
    var fields: [String: String] = [:]
    for (name, value) in response.headers {
        let key = name.lowercased()
        fields[key] = fields[key].map { $0 + ", " + value } ?? value
    }
    return HTTPResult(status: Int(response.status.code), headers: fields, body: Data(body.readableBytesView))
}

/// Polls `url` until it answers 200, or gives up after `timeout` seconds.
public func waitForOK(_ url: URL, timeout: Double = 30) async throws -> HTTPResult {
    let deadline = Date().addingTimeInterval(timeout)
    var last: HTTPResult?
    while Date() < deadline {
        last = try? await http(url)
        if let last, last.status == 200 { return last }
        try await Task.sleep(for: .milliseconds(200))
    }
    throw SidelineProcess.Failure(message: "\(url) did not answer 200 within \(timeout) s (last: \(last?.status ?? 0))")
}
