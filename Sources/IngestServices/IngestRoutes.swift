import Foundation
import HLSOrigin
import HTTPTypes
import Hummingbird
import IngestPolicy
import NIOCore
import NIOPosix
import OriginPolicy
import OriginRegistry
import OriginState
import StreamServices

/// What the ingest route needs from whoever keeps a pushed stream (StreamServices' `PushedStreams`):
/// the checks of what was received, the files, and the publishing. This module only carries
/// the HTTP: who may push, how the body arrives, and how an answer is sent.
public protocol IngestReceiving: Sendable {
    /// Every pushed stream's ingest token, by stream name.
    var ingestTokens: [String: String] { get }
    /// Takes one whole upload. Blocks (checks, disk writes, publishing): the route calls it on
    /// the stream's own thread (`IngestLoad.lane(for:)`), one upload of a stream at a time in
    /// the order they arrived, never on the event loop, Swift's cooperative pool, the blocking
    /// pool that reads segments or another stream's thread.
    func receive(_ path: IngestPath, body: [UInt8]) -> Result<IngestReceipt, Refusal>
    /// What uploads may make the server hold (`ingest` in the config).
    var bounds: IngestBounds { get }
}

extension IngestReceiving {
    public var bounds: IngestBounds { IngestBounds() }
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
    let load: IngestLoad
    /// The largest upload taken (`IngestBounds.largestUpload`).
    public static let maximumBody = IngestBounds.largestUpload

    public init(registry: StreamRegistry, receiver: any IngestReceiving, policy: StatusPolicy = StatusPolicy()) {
        self.registry = registry
        self.receiver = receiver
        self.policy = policy
        self.load = IngestLoad(bounds: receiver.bounds, streams: Array(receiver.ingestTokens.keys))
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
        // Bounded before a byte is read: uploads in flight, then the bytes they buffer.
        let upload: IngestLoad.Upload
        switch load.enter(stream: path.stream) {
        case let .success(entered): upload = entered
        case let .failure(refusal): return .failure(refusal)
        }
        defer { upload.done() }
        // Read straight into the one array the receiver takes (no ByteBuffer copied again).
        var body: [UInt8] = []
        do {
            for try await chunk in request.body {
                guard chunk.readableBytes <= Self.maximumBody - body.count else { return .failure(Self.tooLarge) }
                if let refusal = upload.buffer(chunk.readableBytes) { return .failure(refusal) }
                body += chunk.readableBytesView
            }
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
        let whole = body
        do {
            return try await load.lane(for: path.stream).runIfActive { [receiver] in receiver.receive(path, body: whole) }
        } catch {
            return .failure(Refusal(.internalError, "the upload could not be handed to a worker thread: \(error)"))
        }
    }

    static let tooLarge = Refusal(.tooLarge, "an upload may be at most \(maximumBody >> 20) MiB: push shorter segments or a lower bit rate")
}
