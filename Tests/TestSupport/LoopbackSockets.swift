import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Plain sockets on loopback for the HTTP tests that must see exactly what the server does with
/// a connection. Every call that can block (connect, recv, poll) runs on a thread of its own:
/// on Swift concurrency's shared threads (two on two cores) two blocked tests starve the
/// servers' routers, which run there too, and every other test's request then times out. CI
/// failed that way on 2026-11-27: seven suites, each waiting 10 s, all at the same moment.
/// The async functions here are the ones a test calls; the `Blocking` ones are for code that is
/// already on a thread of its own.
public enum LoopbackSockets {
    public static func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// A TCP connection from `source` (a loopback address) to 127.0.0.1:`port`, as a file
    /// descriptor. `receiveBuffer`: the socket's receive buffer in bytes (set before connecting,
    /// so the window it offers stays that small), for clients that read slowly or not at all.
    public static func connect(port: Int, from source: String = "127.0.0.1", receiveBuffer: Int32? = nil) async throws -> Int32 {
        try await onOwnThread { try connectBlocking(port: port, from: source, receiveBuffer: receiveBuffer) }
    }

    public static func connectBlocking(port: Int, from source: String = "127.0.0.1", receiveBuffer: Int32? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        return fd
    }

    /// A TCP connection to [::1]:`port`, as a file descriptor.
    public static func connectIPv6(port: Int) async throws -> Int32 {
        try await onOwnThread {
            let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw POSIXError(.EMFILE) }
            var remote = sockaddr_in6()
            remote.sin6_family = sa_family_t(AF_INET6)
            remote.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, "::1", &remote.sin6_addr)
            let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
            guard connected == 0 else {
                close(fd)
                throw POSIXError(.ECONNREFUSED)
            }
            return fd
        }
    }

    /// Whether the server has closed the connection (a read returns end of file at once). Never
    /// waits: poll with a timeout of 0.
    public static func isClosed(_ fd: Int32) -> Bool {
        var pollfd = Glibc.pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pollfd, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) <= 0
    }

    /// Reads until the server closes the connection or `timeout` passes: whether it closed
    /// (end of file or a reset) rather than timing out.
    public static func waitForClose(_ fd: Int32, timeout seconds: Int) async throws -> Bool {
        try await onOwnThread {
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count == 0 { return true }
                if count < 0 { return errno == ECONNRESET }
            }
        }
    }

    /// A whole GET over a fresh connection from `source`; the status code, or nil when no
    /// answer came within 10 s.
    public static func status(port: Int, path: String, from source: String) async throws -> Int? {
        try await onOwnThread { try statusBlocking(port: port, path: path, from: source) }
    }

    public static func statusBlocking(port: Int, path: String, from source: String) throws -> Int? {
        let fd = try connectBlocking(port: port, from: source)
        defer { close(fd) }
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var buffer = [UInt8](repeating: 0, count: 512)
        var pollfd = Glibc.pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pollfd, 1, 10_000) > 0 else { return nil }
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 12 else { return nil }
        return Int(String(decoding: buffer[9..<12], as: UTF8.self))
    }

    /// One HTTP/1.1 GET on a connection of its own; the whole response as text. With
    /// `keepAlive` the request does not ask for the connection to be closed, and "[closed]" is
    /// appended when the server closed it within 5 s of the answer.
    public static func rawGET(port: Int, path: String, keepAlive: Bool = false) async throws -> String {
        try await onOwnThread {
            let fd = try connectBlocking(port: port)
            defer { close(fd) }
            var timeout = timeval(tv_sec: keepAlive ? 5 : 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(keepAlive ? "" : "Connection: close\r\n")\r\n".utf8)
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            var response: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count == 0, keepAlive { return String(decoding: response, as: UTF8.self) + "[closed]" }
                if count <= 0 { break }
                response += buffer[0..<count]
            }
            return String(decoding: response, as: UTF8.self)
        }
    }
}
