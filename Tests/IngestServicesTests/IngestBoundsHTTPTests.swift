import Foundation
import HLSOrigin
import Hummingbird
import HummingbirdTesting
import IngestPolicy
import Logging
import NIOCore
import OriginPolicy
import OriginRegistry
import OriginState
import IngestServices
import StreamServices
import Synchronization
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The ingest route's bounds on a real server: uploads in flight past
/// `ingest.max_uploads_in_flight` and bodies past `ingest.max_buffered_mb` are refused 503 with
/// Retry-After, and the room comes back when an upload is done. The receiver holds each upload
/// until the test lets it go (what it does with the bytes is PushedStream's, tested end to end).
@Suite struct IngestBoundsHTTPTests {
    final class HoldingReceiver: IngestReceiving {
        let ingestTokens: [String: String]
        let bounds: IngestBounds
        /// The streams whose uploads are held; the others are taken at once.
        let holds: Set<String>
        private let held = Mutex(0)
        private let open = Atomic<Bool>(false)
        /// What the receiver did, in order: "field done", "other taken"...
        let events = Mutex<[String]>([])
        /// Each stream's uploads one at a time, as PushedStream takes them.
        private let streamLocks: [String: StreamLock]
        final class StreamLock: Sendable { let mutex = Mutex(()) }

        init(bounds: IngestBounds, streams: [String] = ["field"], holds: Set<String> = ["field"]) {
            self.bounds = bounds
            self.ingestTokens = Dictionary(uniqueKeysWithValues: streams.map { ($0, "\($0)-token-0123456789") })
            self.holds = holds
            self.streamLocks = Dictionary(uniqueKeysWithValues: streams.map { ($0, StreamLock()) })
        }

        var holding: Int { held.withLock { $0 } }
        func release() { open.store(true, ordering: .relaxed) }

        /// Runs on the ingest's own threads: blocking here is what a slow disk does. At most
        /// 10 s, so a failing test cannot hang the suite.
        func receive(_ path: IngestPath, body: [UInt8]) -> Result<IngestReceipt, Refusal> {
            guard let lock = streamLocks[path.stream] else { return .failure(.noSuchStream(path.stream)) }
            return lock.mutex.withLock { _ in
                guard holds.contains(path.stream) else {
                    events.withLock { $0.append("\(path.stream) taken") }
                    return .success(IngestReceipt(created: true, message: "received \(body.count) at once"))
                }
                held.withLock { $0 += 1 }
                defer {
                    held.withLock { $0 -= 1 }
                    events.withLock { $0.append("\(path.stream) done") }
                }
                let deadline = ContinuousClock.now + .seconds(10)
                while !open.load(ordering: .relaxed), ContinuousClock.now < deadline { usleep(5000) }
                return .success(IngestReceipt(created: true, message: "received \(body.count)"))
            }
        }
    }

    static func withServer(_ receiver: HoldingReceiver, _ body: @Sendable (Int) async throws -> Void) async throws {
        let registry = StreamRegistry(clock: { 0 })
        for stream in receiver.ingestTokens.keys { registry.apply(.register(stream: stream, variants: ["360p"], targetDuration: 2)) }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger,
                                               routes: [{ IngestRoutes(registry: registry, receiver: receiver).add(to: $0) }])
        try await app.test(.live) { client in
            defer { receiver.release() }
            try await body(try #require(client.port))
        }
    }

    /// A PUT on a connection of its own (the test client's one connection would queue the
    /// second upload behind the held first); the status line and body.
    static func put(_ path: String, bytes: Int, port: Int, token: String = "field-token-0123456789") async throws -> (status: Int, text: String) {
        try await LoopbackSockets.onOwnThread {
            let fd = try LoopbackSockets.connectBlocking(port: port)
            defer { close(fd) }
            var timeout = timeval(tv_sec: 20, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            // A refused upload is answered before its body is read whole: past that the server
            // reads no more, and a send of the rest would block for good.
            var sendTimeout = timeval(tv_sec: 3, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
            let head = Array("PUT \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(bytes)\r\nConnection: close\r\n\r\n".utf8)
            let request = head + [UInt8](repeating: 0x47, count: bytes)
            var sent = 0
            while sent < request.count {
                let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { break }
                sent += n
            }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                received += buffer[..<n]
            }
            let text = String(decoding: received, as: UTF8.self)
            return (Int(text.dropFirst(9).prefix(3)) ?? 0, text)
        }
    }

    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<200 where !condition() { try await Task.sleep(for: .milliseconds(25)) }
        return condition()
    }

    @Test func uploadsPastTheInFlightBoundAreRefused503UntilOneIsDone() async throws {
        let receiver = HoldingReceiver(bounds: IngestBounds(maxUploadsInFlight: 1))
        try await Self.withServer(receiver) { port in
            async let first = Self.put("/ingest/field/360p/seg0.ts", bytes: 3, port: port)
            #expect(try await Self.eventually { receiver.holding == 1 })
            let refused = try await Self.put("/ingest/field/360p/seg1.ts", bytes: 3, port: port)
            #expect(refused.status == 503 && refused.text.lowercased().contains("retry-after: 2"), "\(refused.text)")
            #expect(refused.text.contains("ingest.max_uploads_in_flight"))
            receiver.release()
            #expect(try await first.status == 201)
            #expect(try await Self.put("/ingest/field/360p/seg1.ts", bytes: 3, port: port).status == 201, "the place came back")
        }
    }

    @Test func bodiesPastTheBufferedBoundAreRefused503() async throws {
        // 1 MiB of bodies in memory at once: one upload of 700 KiB is held, a second cannot fit.
        let receiver = HoldingReceiver(bounds: IngestBounds(maxBufferedBytes: 1 << 20))
        let big = 700 << 10
        try await Self.withServer(receiver) { port in
            async let first = Self.put("/ingest/field/360p/seg0.ts", bytes: big, port: port)
            #expect(try await Self.eventually { receiver.holding == 1 })
            let refused = try await Self.put("/ingest/field/360p/seg1.ts", bytes: big, port: port)
            #expect(refused.status == 503 && refused.text.contains("ingest.max_buffered_mb"), "\(refused.text)")
            receiver.release()
            #expect(try await first.status == 201)
            #expect(try await Self.put("/ingest/field/360p/seg1.ts", bytes: big, port: port).status == 201, "the bytes came back")
        }
    }

    /// One stream's uploads cannot delay another's (issue 33). `field`'s uploads block (a slow
    /// disk, a ladder being taken) and, as PushedStream's, wait for one another: two of them,
    /// one working and one waiting its turn, held both threads of the pool every stream
    /// shared, and `other`'s upload waited until one was done (its 10 s hold here). Each stream
    /// now has a thread of its own: `other`'s upload is taken before any of `field`'s is done.
    @Test func aStreamWhoseUploadsBlockDelaysNoOtherStreamsUploads() async throws {
        let receiver = HoldingReceiver(bounds: IngestBounds(), streams: ["field", "other"], holds: ["field"])
        try await Self.withServer(receiver) { port in
            async let first = Self.put("/ingest/field/360p/seg0.ts", bytes: 3, port: port)
            async let second = Self.put("/ingest/field/360p/seg1.ts", bytes: 3, port: port)
            #expect(try await Self.eventually { receiver.holding == 1 }, "field's first upload is held, its second waits its turn")
            let other = try await Self.put("/ingest/other/360p/seg0.ts", bytes: 3, port: port, token: "other-token-0123456789")
            #expect(other.status == 201 && other.text.contains("at once"), "\(other.text)")
            #expect(receiver.events.withLock { $0 } == ["other taken"], "taken while field's uploads were still held")
            receiver.release()
            #expect(try await first.status == 201)
            #expect(try await second.status == 201)
        }
    }

    /// A stream whose uploads pile up is refused past its share of what uploads may hold; another
    /// stream still gets its own (issue 33: one stream could take all of it).
    @Test func aStreamPastItsShareOfBufferedBytesIsRefusedAndAnotherIsNot() async throws {
        // Two largest uploads' worth of bodies for two streams: one each.
        let receiver = HoldingReceiver(bounds: IngestBounds(maxBufferedBytes: 2 * IngestBounds.largestUpload), streams: ["field", "other"], holds: ["field"])
        let body = 40 << 20
        try await Self.withServer(receiver) { port in
            async let first = Self.put("/ingest/field/360p/seg0.ts", bytes: body, port: port)
            #expect(try await Self.eventually { receiver.holding == 1 })
            let second = try await Self.put("/ingest/field/360p/seg1.ts", bytes: body, port: port)
            #expect(second.status == 503 && second.text.contains("ingest.max_buffered_mb"), "\(second.text.prefix(300))")
            let other = try await Self.put("/ingest/other/360p/seg0.ts", bytes: body, port: port, token: "other-token-0123456789")
            #expect(other.status == 201, "\(other.text.prefix(300))")
            receiver.release()
            #expect(try await first.status == 201)
        }
    }
}
