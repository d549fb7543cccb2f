import Foundation
import HLSOrigin
import Hummingbird
import HummingbirdTesting
import Logging
import OriginAPI
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineTesting
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The clip route's bounds over real HTTP on 127.0.0.1: HEAD makes no file, a range past
/// `clips.max_duration` is 400, clips past `max_in_progress` or the scratch limit are 503, and
/// the scratch file is gone once the answer is sent or the client went away. The clip maker
/// writes a file of the planned size instead of remuxing (the remux itself is
/// MarkersAndClipsEndToEndTests' business); everything else is the route as served.
@Suite struct ClipBoundsHTTPTests {
    /// Writes `bytes` zero bytes where the clip goes, after the gate opens.
    final class WritingMaker: ClipMaking {
        let bounds: ClipBounds
        let bytes: Int
        private let calls = Mutex(0)
        private let waiting = Mutex<(open: Bool, continuations: [CheckedContinuation<Void, Never>])>((true, []))

        init(bounds: ClipBounds, bytes: Int = 4096, gated: Bool = false) {
            self.bounds = bounds
            self.bytes = bytes
            waiting.withLock { $0.open = !gated }
        }

        var made: Int { calls.withLock { $0 } }

        func open() {
            let resumed = waiting.withLock { state in
                state.open = true
                defer { state.continuations = [] }
                return state.continuations
            }
            for continuation in resumed { continuation.resume() }
        }

        func makeClip(segments: [String], start: Double, end: Double, into path: String) async throws -> ClipMade {
            calls.withLock { $0 += 1 }
            await withCheckedContinuation { continuation in
                let open = waiting.withLock { state in
                    if !state.open { state.continuations.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path, contents: Data(count: bytes))
            return ClipMade(duration: end - start, snappedBy: 0, bytes: bytes)
        }
    }

    /// Four 2 s entries of 1,000 bytes each in two variants.
    static func registry(directory: String) -> StreamRegistry {
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        for n in 0..<4 {
            registry.apply(.publish(.init(.segment(String(format: "%06d.ts", n), file: .init(path: "\(directory)/main/720p/\(n).ts", size: 1000, duration: 2)),
                stream: "main", variant: "720p", playlist: TestPlaylists.live(count: n + 1))))
        }
        return registry
    }

    static func withServer(_ maker: WritingMaker, _ body: @Sendable (Int, String) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "clips-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let registry = registry(directory: directory)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger,
                                               routes: [{ ClipRoutes(registry: registry, maker: maker, dataDirectory: directory).add(to: $0) }])
        try await app.test(.live) { client in try await body(try #require(client.port), directory + "/.clips") }
    }

    static func scratchFiles(_ directory: String) -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] }

    /// One request on a new connection; the status line and header block (and, unless
    /// `abandon`, the whole body read to the end) on a thread of its own.
    static func request(_ method: String, _ query: String, port: Int, abandon: Bool = false) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                    defer { close(fd) }
                    var address = sockaddr_in()
                    address.sin_family = sa_family_t(AF_INET)
                    address.sin_port = in_port_t(UInt16(port).bigEndian)
                    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
                    let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
                    guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
                    var timeout = timeval(tv_sec: 15, tv_usec: 0)
                    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    let text = "\(method) /api/streams/main/clip.mp4?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                    _ = text.withCString { send(fd, $0, strlen($0), 0) }
                    var received: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 16 << 10)
                    while true {
                        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                        if count <= 0 { break }
                        received += buffer[..<count]
                        if abandon, received.count > 4 { break }
                    }
                    let head = String(decoding: received, as: UTF8.self).components(separatedBy: "\r\n\r\n").first ?? ""
                    return head
                })
            }.start()
        }
    }

    static func status(_ head: String) -> Int? { head.count > 12 ? Int(head.dropFirst(9).prefix(3)) : nil }

    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    @Test func headAnswersFromThePlanAndMakesNoFile() async throws {
        let maker = WritingMaker(bounds: ClipBounds())
        try await Self.withServer(maker) { port, scratch in
            for _ in 0..<20 {
                let head = try await Self.request("HEAD", "start=0&end=4", port: port)
                #expect(Self.status(head) == 200)
                #expect(head.lowercased().contains("content-type: video/mp4") && head.contains("attachment; filename="))
            }
            #expect(maker.made == 0, "no clip was made for a HEAD")
            #expect(Self.scratchFiles(scratch).isEmpty)
            // HEAD of a range GET would refuse is refused the same.
            #expect(Self.status(try await Self.request("HEAD", "start=100", port: port)) == 400)
        }
    }

    @Test func aRangeLongerThanTheMaximumIsRefused400() async throws {
        let maker = WritingMaker(bounds: ClipBounds(maxDuration: 5))
        try await Self.withServer(maker) { port, scratch in
            let refused = try await Self.request("GET", "start=0&end=8", port: port)
            #expect(Self.status(refused) == 400)
            #expect(maker.made == 0)
            #expect(Self.status(try await Self.request("GET", "start=0&end=4", port: port)) == 200)
            #expect(try await Self.eventually { Self.scratchFiles(scratch).isEmpty }, "the scratch file is gone once sent")
        }
    }

    @Test func clipsPastTheCountOrTheScratchLimitAreRefused() async throws {
        // Two at once, 2,500 bytes of scratch: a 2-segment clip (2,000) is held in progress.
        let maker = WritingMaker(bounds: ClipBounds(maxInProgress: 2, scratchLimitBytes: 2500), gated: true)
        try await Self.withServer(maker) { port, scratch in
            async let first = Self.request("GET", "start=0&end=4", port: port)
            #expect(try await Self.eventually { maker.made == 1 })
            // One segment more would pass the scratch limit: 503, and Retry-After.
            let scratchFull = try await Self.request("GET", "start=0&end=2", port: port)
            #expect(Self.status(scratchFull) == 503 && scratchFull.lowercased().contains("retry-after: 5"))
            // A clip that alone needs more than the whole scratch space: 400.
            #expect(Self.status(try await Self.request("GET", "start=0&end=6", port: port)) == 400)
            maker.open()
            #expect(Self.status(try await first) == 200)
            #expect(try await Self.eventually { Self.scratchFiles(scratch).isEmpty })
        }
        let counted = WritingMaker(bounds: ClipBounds(maxInProgress: 1), gated: true)
        try await Self.withServer(counted) { port, _ in
            async let first = Self.request("GET", "start=0&end=2", port: port)
            #expect(try await Self.eventually { counted.made == 1 })
            let busy = try await Self.request("GET", "start=0&end=2", port: port)
            #expect(Self.status(busy) == 503, "a second clip while one is made: \(busy)")
            counted.open()
            #expect(Self.status(try await first) == 200)
            // The room is given back: the next one is made.
            #expect(Self.status(try await Self.request("GET", "start=0&end=2", port: port)) == 200)
        }
    }

    @Test func aClientThatGoesAwayLeavesNoScratch() async throws {
        // 32 MiB: far more than the socket buffers hold, so the client leaves mid-answer.
        let maker = WritingMaker(bounds: ClipBounds(maxInProgress: 1), bytes: 32 << 20)
        try await Self.withServer(maker) { port, scratch in
            for _ in 0..<3 {
                // The room of the clip before comes back once the server has seen the client go
                // (a moment): until then this one is refused 503; a room never given back would
                // refuse it for ever.
                var head = ""
                for _ in 0..<100 {
                    head = try await Self.request("GET", "start=0&end=2", port: port, abandon: true)
                    if Self.status(head) != 503 { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
            }
            #expect(try await Self.eventually { Self.scratchFiles(scratch).isEmpty }, "no scratch left: \(Self.scratchFiles(scratch))")
            #expect(maker.made == 3)
        }
    }
}
