import Foundation
import HLSOrigin
import HLSPlaylist
import Hummingbird
import NIOCore
import OriginAccess
import OriginPolicy
import OriginRegistry
import OriginState

/// `GET /api/streams`: what the server has, for dashboards and operators.
public struct StreamsAPI: Sendable {
    public struct Listing: Codable, Equatable, Sendable {
        public var streams: [StreamInfo]
        /// Private streams the caller's credentials do not cover: their names only, so the page
        /// can ask for the viewer token (and send it as `Authorization: Bearer`).
        public var locked: [LockedStream] = []
        /// The data directory's file system, when the server knows where it records.
        public var disk: Disk?
    }

    public struct Disk: Codable, Equatable, Sendable {
        /// Bytes of segments the streams have recorded (what the registry lists).
        public var recordedBytes: Int
        public var freeBytes: Int
        public var totalBytes: Int

        /// The file system holding `directory` (statvfs); nil when it cannot be read.
        public static func of(directory: String, recordedBytes: Int) -> Disk? {
            var info = statvfs()
            guard statvfs(directory, &info) == 0 else { return nil }
            let block = Int(info.f_frsize)
            return Disk(recordedBytes: recordedBytes, freeBytes: Int(info.f_bavail) * block, totalBytes: Int(info.f_blocks) * block)
        }
    }

    public struct LockedStream: Codable, Equatable, Sendable {
        public var id: String
    }

    /// What the listing may show to whom: whether the caller may watch a stream, and the
    /// credential its URLs then carry. Everyone sees everything without access control.
    public struct Viewer: Sendable {
        public var mayWatch: @Sendable (String) -> Bool
        /// `/access/<credential>` for a private stream the caller may watch, "" otherwise.
        public var urlPrefix: @Sendable (String) -> String
        public init(mayWatch: @escaping @Sendable (String) -> Bool, urlPrefix: @escaping @Sendable (String) -> String) {
            self.mayWatch = mayWatch
            self.urlPrefix = urlPrefix
        }
        public static let everyone = Viewer(mayWatch: { _ in true }, urlPrefix: { _ in "" })
    }

    public struct StreamInfo: Codable, Equatable, Sendable {
        public var id: String
        public var title: String
        public var description: String
        public var keywords: String
        /// starting, live, input-lost, stalled (nothing new published within the stale
        /// threshold), ended or removed.
        public var state: String
        /// What every URL of this stream starts with for this caller: `/access/<credential>`
        /// for a private stream (the page prefixes the API paths it builds with it), "" for an
        /// open one. The URLs below carry it already.
        public var urlPrefix: String = ""
        public var master: String
        /// The recording so far as VOD (`/vod/`), for downloads and clips.
        public var vodMaster: String
        /// The program date-time of the first recorded entry: position 0 of a player of `master`.
        public var recordingStart: String?
        /// `/api/streams/{id}/markers`.
        public var markers: String
        public var targetDuration: Int
        public var variants: [VariantInfo]
    }

    public struct VariantInfo: Codable, Equatable, Sendable {
        public var name: String
        /// failed (its encoder stopped; its playlist carries EXT-X-GAP), stalled, or else the
        /// stream's own state.
        public var state: String
        /// Why the variant failed, while it is failed.
        public var failure: String?
        /// The last failed write to the data directory, while writes fail (disk full...).
        public var writeError: String?
        public var playlist: String
        public var segments: Int
        /// Seconds of media recorded.
        public var durationRecorded: Double
        public var bytesRecorded: Int
        /// Measured from the segments on disk, in bits per second.
        public var averageBitRate: Int
        public var peakSegmentBitRate: Int
        /// Effort steps below the configured preset the encoder runs at now (0: as configured),
        /// and that step's name while below (`superfast`, `ultrafast-b`).
        public var effortStep: Int
        public var effort: String?

        public init(name: String, state: String = "live", failure: String? = nil, writeError: String? = nil, playlist: String, segments: Int, durationRecorded: Double,
                    bytesRecorded: Int = 0, averageBitRate: Int, peakSegmentBitRate: Int, effortStep: Int = 0, effort: String? = nil) {
            self.effortStep = effortStep
            self.effort = effort
            self.bytesRecorded = bytesRecorded
            self.name = name
            self.state = state
            self.failure = failure
            self.writeError = writeError
            self.playlist = playlist
            self.segments = segments
            self.durationRecorded = durationRecorded
            self.averageBitRate = averageBitRate
            self.peakSegmentBitRate = peakSegmentBitRate
        }
    }

    public static func listing(of registry: StreamRegistry, policy: StatusPolicy = StatusPolicy(), dataDirectory: String? = nil, viewer: Viewer = .everyone) -> Listing {
        let now = registry.clock()
        let names = registry.streamNames
        var listing = Listing(streams: names.filter(viewer.mayWatch).compactMap { name in
            guard let stream = registry.stream(named: name) else { return nil }
            let prefix = viewer.urlPrefix(name)
            func stale(_ variant: StreamRegistry.Variant) -> Bool {
                guard stream.phase == .live || stream.phase == .inputLost, variant.recording != nil else { return false }
                return policy.isStale(.init(resource: .mediaPlaylist, streamName: name, stream: stream.phase, targetDuration: stream.targetDuration,
                                            lastPublished: variant.status.lastPublished, servingSince: registry.servingSince, now: now))
            }
            let variants = stream.variantOrder.compactMap { stream.variants[$0] }
            let stalled = !variants.isEmpty && variants.allSatisfy(stale)
            return StreamInfo(
                id: name, title: stream.title, description: stream.description, keywords: stream.keywords, state: stalled ? "stalled" : stream.phase.rawValue,
                urlPrefix: prefix, master: "\(prefix)/live/\(name)/master.m3u8", vodMaster: "\(prefix)/vod/\(name)/master.m3u8",
                // Sideline dates every recording's first entry: no need to walk the others.
                recordingStart: stream.variantOrder.lazy.compactMap { stream.variants[$0]?.recording?.segments.first?.programDateTime }.first.map(ProgramDateTime.format),
                markers: "\(prefix)/api/streams/\(name)/markers", targetDuration: stream.targetDuration,
                variants: stream.variantOrder.filter { stream.variants[$0] != nil }.map { variantName in
                    let variant = stream.variants[variantName]!
                    let status = variant.status, recorded = status.recorded
                    return VariantInfo(
                        name: variantName, state: status.failure != nil ? "failed" : stale(variant) ? "stalled" : stream.phase.rawValue, failure: status.failure, writeError: status.writeError,
                        playlist: "\(prefix)/live/\(name)/\(variantName)/index.m3u8",
                        segments: recorded.segments, durationRecorded: (recorded.duration * 1000).rounded() / 1000, bytesRecorded: recorded.bytes,
                        averageBitRate: Int(recorded.averageBitRate.rounded()), peakSegmentBitRate: Int(recorded.peakBitRate.rounded()),
                        effortStep: status.effortStep, effort: status.effortName
                    )
                }
            )
        }, locked: names.filter { !viewer.mayWatch($0) }.map { LockedStream(id: $0) })
        if let dataDirectory {
            listing.disk = Disk.of(directory: dataDirectory, recordedBytes: listing.streams.reduce(0) { $0 + $1.variants.reduce(0) { $0 + $1.bytesRecorded } })
        }
        return listing
    }

    public static func json(of registry: StreamRegistry, policy: StatusPolicy = StatusPolicy(), dataDirectory: String? = nil, viewer: Viewer = .everyone) throws -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return ByteBuffer(bytes: try encoder.encode(listing(of: registry, policy: policy, dataDirectory: dataDirectory, viewer: viewer)))
    }
}

/// `GET /api/streams` as a route.
public struct StreamsRoutes: Sendable {
    let registry: StreamRegistry
    /// Where the streams are recorded, for the disk figures.
    let dataDirectory: String?

    /// Viewer access control; nil when every stream is open.
    let access: ViewerAccess?
    /// Whose stale rule says which playlists are stalled: the origin's own.
    let policy: StatusPolicy

    public init(registry: StreamRegistry, dataDirectory: String?, access: ViewerAccess? = nil, policy: StatusPolicy = StatusPolicy()) {
        self.registry = registry
        self.policy = policy
        self.dataDirectory = dataDirectory
        self.access = access
    }

    public func add<Context: RequestContext>(to router: Router<Context>) {
        router.get("/api/streams") { request, _ in
            let headers: HTTPFields = [.contentType: "application/json", .cacheControl: CachePolicy.uncached.headerValue, .accessControlAllowOrigin: "*"]
            let viewer = access.map { access in
                let authorization = request.headers[.authorization]
                return StreamsAPI.Viewer(mayWatch: { access.gate.covers(stream: $0, authorization: authorization) },
                                         urlPrefix: { access.urlPrefix(for: $0) })
            } ?? .everyone
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: try StreamsAPI.json(of: registry, policy: policy, dataDirectory: dataDirectory, viewer: viewer)))
        }
        // One stream's entry, as the list gives it: for a caller the list shows a private stream
        // as locked to, but whose credential opens it (the path's, which the gate checked before
        // this route: another box of the venue asking for an angle of its set).
        router.get("/api/streams/:stream") { request, context in
            let name = context.parameters.get("stream") ?? ""
            do throws(Refusal) { _ = try registry.existing(name) } catch { return Response(error) }
            let pathPrefix = ViewerAccess.pathPrefix(of: request)
            let viewer = StreamsAPI.Viewer(mayWatch: { $0 == name }, urlPrefix: { pathPrefix.isEmpty ? access?.urlPrefix(for: $0) ?? "" : pathPrefix })
            guard let info = StreamsAPI.listing(of: registry, policy: policy, viewer: viewer).streams.first else { return Response(Refusal.noSuchStream(name)) }
            return try SetsRoutes.json(info)
        }
        // The angle sets' descriptions beside the streams' (`SetsAPI`).
        SetsRoutes(registry: registry, access: access).add(to: router)
    }
}
