import Foundation
import HLSOrigin
import HLSPlaylist
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFileSystem
import OriginPolicy
import OriginRegistry
import OriginState

/// What the clip route needs from whoever can remux (the executable, with MediaPipeline's
/// `ClipRemuxer` on threads of its own): this module never touches FFmpeg.
public protocol ClipMaking: Sendable {
    /// Copies `segments` from `start` to `end` (seconds from the start of the first) into an MP4
    /// at `path`, creating its directory. Leaves no file behind when it throws.
    func makeClip(segments: [String], start: Double, end: Double, into path: String) async throws -> ClipMade
    /// How long, how many and how much scratch clips may take (`clips` in the config).
    var bounds: ClipBounds { get }
    /// Packs `entries` into one ZIP at `path`, stored (not deflated: MP4 does not compress),
    /// and removes the entries' files, packed or not. Returns the ZIP's size in bytes. Leaves
    /// no ZIP behind when it throws.
    func makeArchive(_ entries: [ArchiveEntry], into path: String) async throws -> Int
}

/// One file of a set clip's ZIP: its name in the archive and where it is now.
public struct ArchiveEntry: Sendable, Equatable {
    public var name: String
    public var path: String
    public init(name: String, path: String) {
        self.name = name
        self.path = path
    }
}

extension ClipMaking {
    public var bounds: ClipBounds { ClipBounds() }

    public func makeArchive(_ entries: [ArchiveEntry], into path: String) async throws -> Int {
        for entry in entries { unlink(entry.path) }
        throw ArchiveUnavailable()
    }
}

/// A clip maker that cannot make ZIPs (the executable's `ClipService` can).
struct ArchiveUnavailable: Error, CustomStringConvertible {
    var description: String { "this server's clip maker makes no ZIP archives" }
}

public struct ClipMade: Sendable, Equatable {
    public var duration: Double
    /// How many seconds before the asked start the clip starts: a copy starts on a keyframe.
    public var snappedBy: Double
    public var bytes: Int
    public init(duration: Double, snappedBy: Double, bytes: Int) {
        self.duration = duration
        self.snappedBy = snappedBy
        self.bytes = bytes
    }
}

extension ClipPlan {
    /// What a clip request asks for, checked against the registry. `limit`: the one variant the
    /// request's credential covers (`ViewerAccess.variantLimit`), which is all it may clip.
    public static func plan(stream name: String, query: String?, limit: String? = nil, registry: StreamRegistry) -> Result<ClipPlan, Refusal> {
        let recording: SetClipPlan.Recording
        switch Self.recording(stream: name, query: query, limit: limit, registry: registry) {
        case let .success(found): recording = found
        case let .failure(refusal): return .failure(refusal)
        }
        switch TimeWindow.parse(start: QueryParameter.value("start", in: query), end: QueryParameter.value("end", in: query)) {
        case let .success(window):
            return plan(stream: name, variant: recording.variant, playlist: recording.playlist, window: window, file: recording.file)
        case let .failure(rejection):
            return .failure(.malformed(rejection.message))
        }
    }

    /// The variant a clip of the stream is cut from (the asked one, the credential's, or the
    /// best recorded) and its recording, as the registry has it.
    static func recording(stream name: String, query: String?, limit: String?, registry: StreamRegistry) -> Result<SetClipPlan.Recording, Refusal> {
        let stream: StreamRegistry.Stream
        do { stream = try registry.existing(name) } catch { return .failure(error) }
        let recorded = Set(stream.variantOrder.filter { stream.variants[$0]?.recording != nil })
        let asked: String?
        switch ClipVariantLimit.variant(asked: QueryParameter.value("variant", in: query), limit: limit, stream: name) {
        case let .success(allowed): asked = allowed
        case let .failure(refusal): return .failure(refusal)
        }
        let variantName: String
        switch variant(asked: asked, variants: stream.variantOrder, recorded: recorded) {
        case let .variant(chosen): variantName = chosen
        case let .unknown(asked, has): return .failure(.noSuchVariant(asked, of: name, has: has))
        case let .nothingRecorded(asked):
            return .failure(Refusal(.nothingRecorded, asked.map { "variant '\($0)' has recorded nothing yet" } ?? "stream '\(name)' has recorded nothing yet"))
        }
        guard let variant = stream.variants[variantName], let playlist = variant.recording else {
            return .failure(Refusal(.nothingRecorded, "variant '\(variantName)' has recorded nothing yet"))
        }
        // The recording's view: late segments of a pushed backlog in place of their stand-ins.
        return .success(.init(stream: name, variant: variantName, playlist: playlist.applyingReplacements()) { variant.segments[$0.uri]?.path })
    }
}

/// `GET /api/streams/{stream}/clip.mp4?start=&end=&variant=`: an MP4 of any range of the
/// recording (`start` and `end` as in `/vod/`: program date-times or seconds from the start),
/// remuxed from the recorded segments without re-encoding, and sent as a download. The MP4 is
/// made in `<data dir>/.clips/` and deleted once it is open for sending. `ClipBounds` bounds its
/// length, the clips at once and their scratch space; `HEAD` makes no clip.
public struct ClipRoutes: Sendable {
    let registry: StreamRegistry
    let maker: any ClipMaking
    let scratchDirectory: String
    let scratch: ClipScratch
    /// The venue's other boxes, for a set whose angles they serve (nil: none).
    let boxes: VenueBoxes?

    public init(registry: StreamRegistry, maker: any ClipMaking, dataDirectory: String, boxes: VenueBoxes? = nil) {
        self.registry = registry
        self.maker = maker
        self.boxes = boxes
        self.scratchDirectory = dataDirectory + "/.clips"
        self.scratch = ClipScratch(bounds: maker.bounds)
        // Once, at start, not per request on Swift's cooperative pool; a maker that gets a path
        // whose directory went makes it again on its own threads (`ClipService`).
        try? FileManager.default.createDirectory(atPath: scratchDirectory, withIntermediateDirectories: true)
    }

    public func add<Context: RequestContext>(to router: Router<Context>) {
        router.get("/api/streams/:stream/clip.mp4") { request, context in
            let plan: ClipPlan
            switch ClipPlan.plan(stream: context.parameters.get("stream") ?? "", query: request.uri.query, limit: ViewerAccess.variantLimit(of: request), registry: registry) {
            case let .success(made): plan = made
            case let .failure(refusal): return Response(refusal)
            }
            if let refusal = scratch.bounds.refusal(duration: plan.end - plan.start) { return Response(refusal) }
            var headers = Self.download("video/mp4", named: plan.fileName)
            // HEAD: the headers the plan gives, without making the clip (it used to make the whole
            // MP4 and leave it behind). The length and X-Clip-* are known only once it is made.
            if request.method == .head { return Response(status: .ok, headers: headers, body: ResponseBody { try await $0.finish(nil) }) }
            let reservation: ClipScratch.Reservation
            switch scratch.reserve(bytes: plannedBytes(plan, stream: context.parameters.get("stream") ?? "")) {
            case let .success(taken): reservation = taken
            case let .failure(refusal): return Response(refusal)
            }
            // Clips are unlinked as soon as they are open for sending, and at the latest when their
            // reservation ends; what a crash left is removed at start (`ClipService`).
            let path = "\(scratchDirectory)/\(UInt64.random(in: 0...UInt64.max)).mp4"
            reservation.holds(path)
            let made: ClipMade
            do {
                made = try await maker.makeClip(segments: plan.segments, start: plan.start, end: plan.end, into: path)
            } catch {
                return Response(Refusal(.internalError, "the clip could not be made: \(error)", audience: .operators))
            }
            headers[.contentLength] = String(made.bytes)
            // Says where the clip really starts: a copy starts on the keyframe at or before the asked start.
            headers[HTTPField.Name("X-Clip-Snapped-By")!] = String(format: "%.3f", made.snappedBy)
            if let date = plan.startDate {
                headers[HTTPField.Name("X-Clip-Start")!] = ProgramDateTime.format(date.addingTimeInterval(-made.snappedBy))
            }
            headers[HTTPField.Name("X-Clip-Duration")!] = String(format: "%.3f", made.duration)
            return Self.sending(path, headers: headers, holding: reservation)
        }
        // An angle set's: every angle at once (`SetClipRoutes.swift`).
        addSetRoute(to: router)
    }

    /// A clip's headers before it is made: a download, never cached.
    static func download(_ type: String, named name: String) -> HTTPFields {
        [.contentType: type, .contentDisposition: "attachment; filename=\"\(name)\"", .cacheControl: "no-store", .accessControlAllowOrigin: "*"]
    }

    /// The answer that sends the scratch file at `path` and then lets it and its room go.
    static func sending(_ path: String, headers: HTTPFields, holding reservation: ClipScratch.Reservation) -> Response {
        Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // The scratch room and file are held until this body is done with (sent, or the
            // client gone).
            defer { withExtendedLifetime(reservation) {} }
            try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                // Open: the name can go now; the bytes stay until the handle closes.
                unlink(path)
                for try await chunk in handle.readChunks(chunkLength: .kibibytes(256)) {
                    try await writer.write(chunk)
                }
            }
            try await writer.finish(nil)
            // Held until the socket took the last byte: the writer returns earlier (over
            // TLS, with the clip still queued in memory; ResponseConnection says more).
            await ResponseConnection.drained()
        })
    }
}

extension ClipRoutes {
    /// The clip's scratch size, about: the recorded segments it copies (an MP4 of the same
    /// packets is a little smaller than their MPEG-TS).
    func plannedBytes(_ plan: ClipPlan, stream: String) -> Int {
        guard let variant = (try? registry.existing(stream))?.variants[plan.variant] else { return 0 }
        let files = Set(plan.segments)
        return variant.segments.values.reduce(0) { total, file in files.contains(file.path) ? total &+ max(0, file.size) : total }
    }
}
