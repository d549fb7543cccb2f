import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import OriginPolicy

/// What the ingest route needs from whoever keeps a pushed stream (StreamServices' `PushedStreams`):
/// the checks of what was received, the files, and the publishing. This module only carries
/// the HTTP: who may push, how the body arrives, and how an answer is sent.
public protocol IngestReceiving: Sendable {
    /// Every pushed stream's ingest token, by stream name.
    var ingestTokens: [String: String] { get }
    /// Takes one whole upload. Blocks (checks, disk writes, publishing): the route calls it on a
    /// thread of NIO's blocking-I/O pool, never on the event loop or Swift's cooperative pool.
    func receive(_ path: IngestPath, body: [UInt8]) -> Result<IngestReceipt, Refusal>
}

/// An upload taken: `created` for a segment kept under a new name (201), otherwise 200.
public struct IngestReceipt: Sendable, Equatable {
    public var created: Bool
    public var message: String
    public init(created: Bool, message: String) {
        self.created = created
        self.message = message
    }
}

/// `/ingest/{stream}/...`: a remote encoder's segments and playlists, by `PUT` (ffmpeg's HLS
/// muxer with `-method PUT`), by `POST` with the file as the body, or by `POST` of a
/// `multipart/form-data` form whose file is in the field `uploadFile` (a field app's way; any
/// one file part is taken). Every upload is read whole before anything is written, so an upload
/// that stops (closed by the server's idle timeout) leaves nothing behind.
public struct IngestRoutes: Sendable {
    let registry: StreamRegistry
    let receiver: any IngestReceiving
    let policy: StatusPolicy
    /// The largest upload taken: a segment of a few seconds at a venue's highest bit rates is
    /// a few megabytes; this leaves ten times that.
    public static let maximumBody = 64 << 20

    public init(registry: StreamRegistry, receiver: any IngestReceiving, policy: StatusPolicy = StatusPolicy()) {
        self.registry = registry
        self.receiver = receiver
        self.policy = policy
    }

    public func add<Context: RequestContext>(to router: Router<Context>) {
        router.put("/ingest/**") { request, _ in await respond(to: request) }
        router.post("/ingest/**") { request, _ in await respond(to: request) }
    }

    func respond(to request: Request) async -> Response {
        let outcome = await take(request)
        switch outcome {
        case let .success(receipt):
            let headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: CachePolicy.noStore.headerValue]
            return Response(status: receipt.created ? .created : .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: receipt.message + "\n")))
        case let .failure(refusal):
            return Response(refusal.forOperators())
        }
    }

    private func take(_ request: Request) async -> Result<IngestReceipt, Refusal> {
        let path: IngestPath
        switch IngestPath.parse(request.uri.path) {
        case let .success(parsed): path = parsed
        case let .failure(rejection): return .failure(policy.refuse(rejection))
        }
        do throws(Refusal) {
            _ = try registry.existing(path.stream)
        } catch {
            return .failure(error)
        }
        if let refusal = IngestAuthorization.check(stream: path.stream, authorization: request.headers[.authorization], tokens: receiver.ingestTokens) {
            return .failure(refusal)
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > Self.maximumBody {
            return .failure(Self.tooLarge)
        }
        var body: [UInt8]
        do {
            let buffer = try await request.body.collect(upTo: Self.maximumBody)
            body = Array(buffer.readableBytesView)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            return .failure(Self.tooLarge)
        } catch {
            // The client went away (or stalled until the idle timeout): nothing was written.
            return .failure(.malformed("the upload did not arrive whole: \(error)"))
        }
        if let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data") {
            switch MultipartUpload.file(in: body, contentType: type) {
            case let .success(file): body = file
            case let .failure(refusal): return .failure(refusal)
            }
        }
        let upload = body
        do {
            return try await NIOThreadPool.singleton.runIfActive { [receiver] in receiver.receive(path, body: upload) }
        } catch {
            return .failure(Refusal(.internalError, "the upload could not be handed to a worker thread: \(error)"))
        }
    }

    static let tooLarge = Refusal(.tooLarge, "an upload may be at most \(maximumBody >> 20) MiB: push shorter segments or a lower bit rate")
}
