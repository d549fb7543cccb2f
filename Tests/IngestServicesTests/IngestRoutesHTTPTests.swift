import Foundation
import HLSOrigin
import Hummingbird
import HummingbirdTesting
import IngestPolicy
import IngestServices
import Logging
import NIOCore
import OriginPolicy
import OriginRegistry
import OriginState
import StreamServices
import Synchronization
import Testing

/// The ingest route's own job, on a real server: who may push, how the body arrives (whole,
/// bounded, from a multipart form), and how the receiver's answer becomes HTTP. What is done
/// with an upload is the receiver's (StreamServices' `PushedStreams`, tested end to end with
/// ffmpeg pushing); here a receiver that keeps what it is handed.
@Suite struct IngestRoutesHTTPTests {
    final class KeepingReceiver: IngestReceiving {
        let ingestTokens = ["field": "field-token-0123456789", "other": "other-token-0123456789"]
        let taken = Mutex<[(IngestPath, [UInt8])]>([])
        let answer: Result<IngestReceipt, Refusal>

        init(answer: Result<IngestReceipt, Refusal> = .success(IngestReceipt(created: true, message: "received"))) {
            self.answer = answer
        }

        func receive(_ path: IngestPath, body: [UInt8]) -> Result<IngestReceipt, Refusal> {
            taken.withLock { $0.append((path, body)) }
            return answer
        }
    }

    func application(_ receiver: KeepingReceiver) -> some ApplicationProtocol {
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "field", variants: ["360p"], targetDuration: 2))
        registry.apply(.register(stream: "other", variants: ["360p"], targetDuration: 2))
        registry.apply(.register(stream: "camera", variants: ["360p"], targetDuration: 2))
        registry.apply(.register(stream: "gone", variants: ["360p"], targetDuration: 2))
        registry.apply(.phase(stream: "gone", .removed))
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger,
                                            routes: [{ IngestRoutes(registry: registry, receiver: receiver).add(to: $0) }])
    }

    let bearer: HTTPFields = [.authorization: "Bearer field-token-0123456789"]

    @Test func aPutWithTheStreamsTokenIsHandedOverWholeAndAnsweredAsTheReceiverSays() async throws {
        let receiver = KeepingReceiver()
        let body = [UInt8]((0..<100_000).map { UInt8($0 % 251) })
        try await application(receiver).test(.live) { client in
            try await client.execute(uri: "/ingest/field/360p/seg0.ts", method: .put, headers: bearer, body: ByteBuffer(bytes: body)) { response in
                #expect(response.status == .created)
                #expect(response.headers[.cacheControl] == "no-store")
                #expect(String(buffer: response.body) == "received\n")
            }
            try await client.execute(uri: "/ingest/field/360p/index.m3u8", method: .post, headers: bearer, body: ByteBuffer(string: "#EXTM3U\n")) { response in
                #expect(response.status == .created)
            }
        }
        let taken = receiver.taken.withLock { $0 }
        #expect(taken.map(\.0) == [.segment(stream: "field", variant: "360p", name: "seg0.ts"), .mediaPlaylist(stream: "field", variant: "360p")])
        #expect(taken.first?.1 == body)
    }

    @Test func credentialsStreamsAndPathsAreCheckedBeforeTheBodyIsTaken() async throws {
        let receiver = KeepingReceiver()
        try await application(receiver).test(.live) { client in
            let segment = ByteBuffer(bytes: [0x47])
            try await client.execute(uri: "/ingest/field/360p/seg0.ts", method: .put, body: segment) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == "Bearer realm=\"sideline-ingest\"")
                #expect(response.headers[.accessControlAllowOrigin] == nil, "an operator's answer")
            }
            try await client.execute(uri: "/ingest/other/360p/seg0.ts", method: .put, headers: bearer, body: segment) { response in
                #expect(response.status == .forbidden, "another stream's token")
            }
            try await client.execute(uri: "/ingest/camera/360p/seg0.ts", method: .put, headers: bearer, body: segment) { response in
                #expect(response.status == .forbidden, "a stream that takes no pushes")
                #expect(String(buffer: response.body).contains("ingest_token"))
            }
            try await client.execute(uri: "/ingest/nowhere/360p/seg0.ts", method: .put, headers: bearer, body: segment) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/ingest/gone/360p/seg0.ts", method: .put, headers: bearer, body: segment) { response in
                #expect(response.status == .gone)
            }
            try await client.execute(uri: "/ingest/field/360p/../../etc/passwd.ts", method: .put, headers: bearer, body: segment) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/ingest/field/360p/seg0.mp4", method: .put, headers: bearer, body: segment) { response in
                #expect(response.status == .notFound, "only the layout ffmpeg's HLS muxer writes")
            }
        }
        #expect(receiver.taken.withLock { $0.isEmpty })
    }

    @Test func anUploadOverTheLimitIsRefusedWith413() async throws {
        let receiver = KeepingReceiver()
        try await application(receiver).test(.live) { client in
            let tooMuch = ByteBuffer(repeating: 0x47, count: IngestRoutes.maximumBody + 1)
            try await client.execute(uri: "/ingest/field/360p/seg0.ts", method: .put, headers: bearer, body: tooMuch) { response in
                #expect(response.status == .contentTooLarge)
                #expect(String(buffer: response.body).contains("64 MiB"))
            }
        }
        #expect(receiver.taken.withLock { $0.isEmpty })
    }

    @Test func aMultipartFormHandsOverTheFileInUploadFile() async throws {
        let receiver = KeepingReceiver()
        let file = [UInt8]((0..<5_000).map { UInt8($0 % 256) })
        var withBoundary = bearer
        withBoundary[.contentType] = "multipart/form-data; boundary=\(Self.boundary)"
        let headers = withBoundary
        let form = Self.form
        try await application(receiver).test(.live) { client in
            // The field app's form: a text field before the file.
            try await client.execute(uri: "/ingest/field/360p/seg1.ts", method: .post, headers: headers,
                                     body: form([("title", nil, Array("Roof".utf8)), ("uploadFile", "seg1.ts", file)])) { response in
                #expect(response.status == .created)
            }
            // No uploadFile field but one file part: that part.
            try await client.execute(uri: "/ingest/field/360p/seg2.ts", method: .post, headers: headers, body: form([("file", "seg2.ts", file)])) { response in
                #expect(response.status == .created)
            }
            try await client.execute(uri: "/ingest/field/360p/seg3.ts", method: .post, headers: headers, body: form([("title", nil, Array("Roof".utf8))])) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("uploadFile"))
            }
            var noBoundary = bearer
            noBoundary[.contentType] = "multipart/form-data"
            try await client.execute(uri: "/ingest/field/360p/seg4.ts", method: .post, headers: noBoundary, body: form([("uploadFile", "x.ts", file)])) { response in
                #expect(response.status == .badRequest)
            }
        }
        #expect(receiver.taken.withLock { $0.map(\.1) } == [file, file])
    }

    static let boundary = "xYzBoundary"

    static func form(_ parts: [(name: String, filename: String?, body: [UInt8])]) -> ByteBuffer {
        var bytes: [UInt8] = []
        for part in parts {
            let filename = part.filename.map { "; filename=\"\($0)\"" } ?? ""
            bytes += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\"\(filename)\r\n\r\n".utf8) + part.body + Array("\r\n".utf8)
        }
        return ByteBuffer(bytes: bytes + Array("--\(boundary)--\r\n".utf8))
    }

    @Test func theReceiversRefusalIsTheAnswer() async throws {
        let receiver = KeepingReceiver(answer: .failure(.malformed("segment 'seg0.ts' of variant '360p': no sync byte").forOperators()))
        try await application(receiver).test(.live) { client in
            try await client.execute(uri: "/ingest/field/360p/seg0.ts", method: .put, headers: bearer, body: ByteBuffer(bytes: [1, 2, 3])) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).hasPrefix("segment 'seg0.ts' of variant '360p': no sync byte\nrequest-id: "))
                #expect(response.headers[.cacheControl] == "no-store")
            }
        }
    }
}
