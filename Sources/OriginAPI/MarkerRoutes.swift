import Foundation
import HLSOrigin
import HLSPlaylist
import Hummingbird
import NIOCore
import OriginPolicy
import OriginRegistry
import OriginState
import SegmentStore

/// `/api/streams/{stream}/markers` (and an angle set's, `SetMarkerRoutes.swift`): list (GET, open to all, like `/api/streams`), add (POST)
/// and remove (`DELETE .../markers/{id}`). Writing needs `Authorization: Bearer` with the
/// analyst token or the admin token; with neither configured, writing is off (403 says how to
/// turn it on).
public struct MarkerRoutes: Sendable {
    let registry: StreamRegistry
    let book: MarkerBook
    let writing: OperatorToken
    /// The venue's other boxes, for a set whose angles they serve (nil: none).
    let boxes: VenueBoxes?

    public init(registry: StreamRegistry, book: MarkerBook, analystToken: String, adminToken: String, boxes: VenueBoxes? = nil) {
        self.registry = registry
        self.book = book
        self.writing = .analyst(analystToken, admin: adminToken)
        self.boxes = boxes
    }

    /// A marker as the API lists it: the marker, and where it lies in the recording.
    struct Listed: Encodable {
        let marker: Marker
        /// Seconds from the start of the recording (for seeking a player), when known.
        let offset: Double?

        enum CodingKeys: String, CodingKey { case offset }

        func encode(to encoder: any Encoder) throws {
            try marker.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(offset.map { ($0 * 1000).rounded() / 1000 }, forKey: .offset)
        }
    }

    struct Listing: Encodable {
        /// For a set's list: the set (the markers are its default angle's, `stream`).
        var set: String? = nil
        let stream: String
        let markers: [Listed]
    }

    /// The stream's markers, each with its offset in the stream's recording.
    func listing(of name: String) throws(Refusal) -> [Listed] {
        let stream = try MarkerBook.existing(registry, name)
        let recording = stream.variantOrder.lazy.compactMap { stream.variants[$0]?.recording }.first
        let times = recording.map(PlaylistTimes.init)
        let offsets = stream.markers.map { marker in times?.offset(of: marker.time) }
        return zip(stream.markers, offsets).map { Listed(marker: $0, offset: $1) }
    }

    public func add<Context: RequestContext>(to router: Router<Context>) {
        router.get("/api/streams/:stream/markers") { _, context in
            let name = context.parameters.get("stream") ?? ""
            let listed: [Listed]
            do throws(Refusal) {
                listed = try listing(of: name)
            } catch {
                return Response(error)
            }
            return try Self.json(.ok, Listing(stream: name, markers: listed))
        }
        let writing = router.group("/api/streams/:stream/markers")
            .add(middleware: OperatorTokenMiddleware(check: self.writing))
        writing.post { request, context in
            let name = context.parameters.get("stream") ?? ""
            let body = try await request.body.collect(upTo: 16 << 10)
            do throws(Refusal) {
                return Self.created(try await book.add(stream: name, body: Array(buffer: body)), in: "/api/streams/\(name)/markers")
            } catch {
                return Response(error)
            }
        }
        writing.delete(":id") { _, context in
            do throws(Refusal) {
                try await book.remove(stream: context.parameters.get("stream") ?? "", id: context.parameters.get("id") ?? "")
                return Self.removed
            } catch {
                return Response(error)
            }
        }
        addSetRoutes(to: router)
    }

    /// 201 with the marker, and where it can be removed (`list`/<id>).
    static func created(_ marker: Marker, in list: String) -> Response {
        do {
            var response = try json(.created, marker)
            response.headers[.location] = "\(list)/\(marker.id)"
            return response
        } catch {
            return Response(Refusal(.internalError, "the marker was kept but cannot be shown: \(error)", audience: .operators))
        }
    }

    static var removed: Response { Response(status: .noContent, headers: [.cacheControl: CachePolicy.uncached.headerValue]) }

    static func json(_ status: HTTPResponse.Status, _ value: some Encodable) throws -> Response {
        let headers: HTTPFields = [.contentType: "application/json", .cacheControl: CachePolicy.uncached.headerValue, .accessControlAllowOrigin: "*"]
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try MarkerFile.encoder.encode(value))))
    }

}
