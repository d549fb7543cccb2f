import Foundation
import HLSPlaylist
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFileSystem

/// What the clip route needs from whoever can remux (the executable, with MediaPipeline's
/// `ClipRemuxer` on threads of its own): this module never touches FFmpeg.
public protocol ClipMaking: Sendable {
    /// Copies `segments` from `start` to `end` (seconds from the start of the first) into an MP4
    /// at `path`. Leaves no file behind when it throws.
    func makeClip(segments: [String], start: Double, end: Double, into path: String) async throws -> ClipMade
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

/// A refusal can be the failure of a `Result`.
extension StatusPolicy.Refusal: Error {}

/// What a clip request asks for, checked against the registry: the files, where to cut, and
/// the file name. Pure, so its 400s and 404s are tested without a server.
public struct ClipPlan: Sendable, Equatable {
    public var variant: String
    public var segments: [String]
    public var start: Double
    public var end: Double
    /// The wall-clock time of the asked start, when known.
    public var startDate: Date?
    public var fileName: String

    public static func plan(stream name: String, query: String?, registry: StreamRegistry) -> Result<ClipPlan, StatusPolicy.Refusal> {
        guard let stream = registry.stream(named: name) else { return .failure(.init(status: 404, reason: "no stream named '\(name)'")) }
        if stream.phase == .removed { return .failure(.init(status: 410, reason: "stream '\(name)' was removed", cache: .gone)) }
        let asked = VODDecision.parameter("variant", in: query)
        let variantName: String
        if let asked, !asked.isEmpty {
            guard stream.variants[asked] != nil else {
                return .failure(.init(status: 404, reason: "stream '\(name)' has no variant '\(asked)'; it has \(stream.variantOrder.joined(separator: ", "))"))
            }
            variantName = asked
        } else {
            // The best rung that has recorded something.
            guard let best = stream.variantOrder.first(where: { stream.variants[$0]?.playlist != nil }) else {
                return .failure(.init(status: 404, reason: "stream '\(name)' has recorded nothing yet", cache: .transientError))
            }
            variantName = best
        }
        guard let variant = stream.variants[variantName], let playlist = variant.playlist?.playlist else {
            return .failure(.init(status: 404, reason: "variant '\(variantName)' has recorded nothing yet", cache: .transientError))
        }
        switch TimeWindow.parse(start: VODDecision.parameter("start", in: query), end: VODDecision.parameter("end", in: query)) {
        case let .success(window):
            return plan(stream: name, variant: variantName, playlist: playlist, window: window) { variant.segments[$0.uri]?.path }
        case let .failure(rejection):
            return .failure(.init(status: 400, reason: rejection.message))
        }
    }

    /// The clip of `window` from a variant's recorded `playlist`; `file` gives an entry's
    /// segment file (nil when there is none). For the route and for `sideline export` alike.
    public static func plan(stream name: String, variant variantName: String, playlist: MediaPlaylist, window: TimeWindow,
                            file: (MediaSegment) -> String?) -> Result<ClipPlan, StatusPolicy.Refusal> {
        let span: MediaPlaylist.WindowSpan
        switch playlist.resolve(window) {
        case let .success(resolved): span = resolved
        case let .failure(rejection): return .failure(.init(status: 400, reason: rejection.message))
        }
        // GAP entries have no file: the clip skips them (it then starts at the first real entry).
        let entries = playlist.segments[span.entries]
        let files = entries.compactMap { $0.gap ? nil : file($0) }
        guard !files.isEmpty else { return .failure(.init(status: 404, reason: "the range holds only missing (EXT-X-GAP) entries")) }
        let leadingGaps = entries.prefix { $0.gap }.reduce(0.0) { $0 + $1.duration }
        let start = max(0, span.start - leadingGaps)
        let end = span.end - leadingGaps
        let stamp = span.startDate.map { ProgramDateTime.format($0).replacingOccurrences(of: ":", with: "-") } ?? "\(Int(span.start))s"
        let seconds = Int((span.end - span.start).rounded())
        return .success(ClipPlan(variant: variantName, segments: files, start: start, end: end, startDate: span.startDate,
                                 fileName: "\(name)-\(variantName)-\(stamp)-\(seconds)s.mp4"))
    }
}

extension ClipRoutes {
    /// Clips are unlinked as soon as they are open for sending. One whose body was never sent
    /// (a HEAD request, whose body Hummingbird drops; a client gone before the first byte) is
    /// removed here, before the next clip is made, once it is ten minutes old.
    func sweepScratch(now: Date = Date()) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: scratchDirectory)) ?? []
        for name in names {
            let path = scratchDirectory + "/" + name
            guard let modified = try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date,
                  now.timeIntervalSince(modified) > 600 else { continue }
            unlink(path)
        }
    }
}

/// `GET /api/streams/{stream}/clip.mp4?start=&end=&variant=`: an MP4 of any range of the
/// recording (`start` and `end` as in `/vod/`: program date-times or seconds from the start),
/// remuxed from the recorded segments without re-encoding, and sent as a download. The MP4 is
/// made in `<data dir>/.clips/` and deleted once it is open for sending.
public struct ClipRoutes: Sendable {
    let registry: StreamRegistry
    let maker: any ClipMaking
    let scratchDirectory: String

    public init(registry: StreamRegistry, maker: any ClipMaking, dataDirectory: String) {
        self.registry = registry
        self.maker = maker
        self.scratchDirectory = dataDirectory + "/.clips"
    }

    public func add<Context: RequestContext>(to router: Router<Context>) {
        router.get("/api/streams/:stream/clip.mp4") { request, context in
            let plan: ClipPlan
            switch ClipPlan.plan(stream: context.parameters.get("stream") ?? "", query: request.uri.query, registry: registry) {
            case let .success(made): plan = made
            case let .failure(refusal): return OriginRoutes.response(for: refusal)
            }
            try? FileManager.default.createDirectory(atPath: scratchDirectory, withIntermediateDirectories: true)
            sweepScratch()
            let path = "\(scratchDirectory)/\(UInt64.random(in: 0...UInt64.max)).mp4"
            let made: ClipMade
            do {
                made = try await maker.makeClip(segments: plan.segments, start: plan.start, end: plan.end, into: path)
            } catch {
                return AdminRoutes.text(500, "the clip could not be made: \(error)")
            }
            var headers: HTTPFields = [
                .contentType: "video/mp4",
                .contentLength: String(made.bytes),
                .contentDisposition: "attachment; filename=\"\(plan.fileName)\"",
                .cacheControl: "no-store",
                .accessControlAllowOrigin: "*",
            ]
            // Says where the clip really starts: a copy starts on the keyframe at or before the asked start.
            headers[HTTPField.Name("X-Clip-Snapped-By")!] = String(format: "%.3f", made.snappedBy)
            if let date = plan.startDate {
                headers[HTTPField.Name("X-Clip-Start")!] = ProgramDateTime.format(date.addingTimeInterval(-made.snappedBy))
            }
            headers[HTTPField.Name("X-Clip-Duration")!] = String(format: "%.3f", made.duration)
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                    // Open: the name can go now; the bytes stay until the handle closes.
                    unlink(path)
                    for try await chunk in handle.readChunks(chunkLength: .kibibytes(256)) {
                        try await writer.write(chunk)
                    }
                }
                try await writer.finish(nil)
            })
        }
    }
}
