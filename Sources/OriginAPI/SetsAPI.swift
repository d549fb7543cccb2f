import Foundation
import HLSOrigin
import Hummingbird
import NIOCore
import OriginAccess
import OriginPolicy
import OriginRegistry
import OriginState

/// `GET /api/sets` and `GET /api/sets/{set}`: the angle sets and their angles, for the page
/// and for dashboards. The keys are snake_case and fixed (the page reads them). A private set
/// shows nothing of itself to a caller whose token does not cover it: it is not listed, and
/// `/api/sets/{set}` answers as for a set that does not exist (issue 33: the listing gave its
/// name, title and angles). The page asks for its token when its address names it (`?set=`).
public enum SetsAPI {
    public struct Listing: Codable, Equatable, Sendable {
        public var sets: [SetInfo]
    }

    public struct SetInfo: Codable, Equatable, Sendable {
        public var name: String
        public var title: String
        public var segmentDuration: Double
        /// Whether any angle is private: the set then opens with one credential, which its
        /// URLs below carry when the caller's token covers the set.
        public var `private`: Bool
        public var master: String
        public var vod: String
        public var markers: String
        public var clip: String
        /// Default angle first.
        public var angles: [AngleInfo]

        enum CodingKeys: String, CodingKey {
            case name, title, segmentDuration = "segment_duration", `private`, master, vod, markers, clip, angles
        }
    }

    public struct AngleInfo: Codable, Equatable, Sendable {
        public var stream: String
        public var title: String
        public var `default`: Bool
        /// The stream's state as `/api/streams` gives it (`starting`, `live`, `stalled`...).
        public var state: String
        public var master: String
        public var vod: String
        /// Whether another box of the venue encodes and serves the angle (`boxes`): its URLs
        /// reach it through the venue's edge.
        public var remote: Bool
    }

    /// `set` as a caller who may watch it sees it (`viewer`: the credential their URLs carry,
    /// as for `/api/streams`); nil for one who may not. `isPrivate`: whether a name (stream or
    /// set) needs a credential.
    /// `remote`: the angles other boxes serve, as this box last heard of them.
    public static func describe(_ set: StreamRegistry.AngleSet, streams: [StreamsAPI.StreamInfo], remote: [String: OriginState.RemoteAngle] = [:],
                                viewer: StreamsAPI.Viewer, isPrivate: (String) -> Bool) -> SetInfo? {
        guard viewer.mayWatch(set.name) else { return nil }
        let prefix = viewer.urlPrefix(set.name)
        let angles = set.streams.enumerated().map { index, name in
            let master = "\(prefix)/live/\(name)/master.m3u8", vod = "\(prefix)/vod/\(name)/master.m3u8"
            if let angle = remote[name] {
                return AngleInfo(stream: name, title: angle.title, default: index == 0, state: angle.state, master: master, vod: vod, remote: true)
            }
            let info = streams.first { $0.id == name }
            return AngleInfo(stream: name, title: info?.title ?? "", default: index == 0, state: info?.state ?? "removed", master: master, vod: vod, remote: false)
        }
        return SetInfo(name: set.name, title: set.title, segmentDuration: set.segmentDuration, private: isPrivate(set.name),
                       master: "\(prefix)/live/\(set.name)/master.m3u8", vod: "\(prefix)/vod/\(set.name)/master.m3u8",
                       markers: "\(prefix)/api/sets/\(set.name)/markers", clip: "\(prefix)/api/sets/\(set.name)/clip.zip", angles: angles)
    }

    public static func listing(of registry: StreamRegistry, viewer: StreamsAPI.Viewer = .everyone, isPrivate: (String) -> Bool = { _ in false }) -> Listing {
        // The streams' states as /api/streams computes them, for every stream (locked or not:
        // `describe` decides what a caller sees).
        let streams = StreamsAPI.listing(of: registry).streams
        let remote = registry.remoteAngles
        return Listing(sets: registry.angleSets.compactMap { describe($0, streams: streams, remote: remote, viewer: viewer, isPrivate: isPrivate) })
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return encoder
    }()
}

/// `GET /api/sets` and `GET /api/sets/{set}` as routes; added with `/api/streams`
/// (`StreamsRoutes`), answered only where the config has sets (404 otherwise, as any unknown
/// path). A set another box serves is not listed here, and its own path says where it is served.
struct SetsRoutes: Sendable {
    let registry: StreamRegistry
    let access: ViewerAccess?

    func add<Context: RequestContext>(to router: Router<Context>) {
        guard !registry.angleSets.isEmpty || !registry.setsServedElsewhere.isEmpty else { return }
        router.get("/api/sets") { request, _ in
            try Self.json(SetsAPI.listing(of: registry, viewer: viewer(of: request), isPrivate: isPrivate))
        }
        router.get("/api/sets/:set") { request, context in
            let name = context.parameters.get("set") ?? ""
            let viewer = viewer(of: request)
            // A set another box serves says so, but only to a caller who may watch it: to anyone
            // else a private set does not exist.
            if registry.setsServedElsewhere.contains(name) {
                return Response(viewer.mayWatch(name) ? Refusal.setServedByAnotherBox(name) : Refusal.noSuchSet(name))
            }
            // A set the caller may not watch answers as one that does not exist.
            guard let set = registry.angleSet(named: name), let info = SetsAPI.describe(set, streams: StreamsAPI.listing(of: registry).streams, remote: registry.remoteAngles, viewer: viewer, isPrivate: isPrivate) else {
                return Response(Refusal.noSuchSet(name))
            }
            return try Self.json(info)
        }
    }

    var isPrivate: @Sendable (String) -> Bool { { [access] in access?.gate.rules.isPrivate($0) ?? false } }

    func viewer(of request: Request) -> StreamsAPI.Viewer {
        guard let access else { return .everyone }
        let authorization = request.headers[.authorization]
        return StreamsAPI.Viewer(mayWatch: { access.gate.covers(stream: $0, authorization: authorization) }, urlPrefix: { access.urlPrefix(for: $0) })
    }

    static func json(_ value: some Encodable) throws -> Response {
        let headers: HTTPFields = [.contentType: "application/json", .cacheControl: CachePolicy.uncached.headerValue, .accessControlAllowOrigin: "*"]
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try SetsAPI.encoder.encode(value))))
    }
}
