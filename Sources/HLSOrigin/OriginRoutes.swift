import Hummingbird
import NIOCore

/// The HTTP face of the registry: `/live/...` for playlists and segments, `/healthz`.
/// HEAD is answered by Hummingbird from the GET route (same headers, no body).
public struct OriginRoutes: Sendable {
    public static let playlistContentType = "application/vnd.apple.mpegurl"
    public static let segmentContentType = "video/mp2t"

    let registry: StreamRegistry
    let fileIO: FileIO

    public init(registry: StreamRegistry, fileIO: FileIO = FileIO()) {
        self.registry = registry
        self.fileIO = fileIO
    }

    public func add<Context: RequestContext>(to router: Router<Context>) {
        router.get("/live/**") { request, context in
            try await respond(to: request, context: context)
        }
        router.get("/healthz") { _, _ in "ok\n" }
    }

    func respond(to request: Request, context: some RequestContext) async throws -> Response {
        let decision = OriginDecision.decide(OriginPath.parse(request.uri.path), registry: registry)
        var headers: HTTPFields = [.accessControlAllowOrigin: "*"]
        switch decision {
        case let .playlist(bytes, cache):
            headers[.contentType] = Self.playlistContentType
            headers[.cacheControl] = cache.headerValue
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bytes))
        case let .segment(file):
            headers[.contentType] = Self.segmentContentType
            headers[.cacheControl] = CachePolicy.segment.headerValue
            headers[.acceptRanges] = "none"
            let body = try await fileIO.loadFile(path: file.path, context: context)
            return Response(status: .ok, headers: headers, body: body)
        case let .refuse(status, reason, retryAfter):
            headers[.contentType] = "text/plain; charset=utf-8"
            headers[.cacheControl] = CachePolicy.transientError.headerValue
            if let retryAfter { headers[.retryAfter] = String(retryAfter) }
            return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: reason + "\n")))
        }
    }
}
