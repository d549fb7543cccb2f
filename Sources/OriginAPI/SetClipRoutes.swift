import Foundation
import HLSOrigin
import HLSPlaylist
import HTTPTypes
import Hummingbird
import OriginPolicy
import OriginRegistry
import OriginState

/// `GET /api/sets/{set}/clip.zip?start=&end=&variant=`: every angle of a play in one download,
/// a ZIP (stored, not deflated) of one MP4 per angle named `<set>-<stream>.mp4`, each cut from
/// the same program date-times (`SetClipPlan`). `start`, `end` and `variant` as for
/// `clip.mp4`; seconds count from the default angle's recording.
///
/// Bounds: a set clip is one clip of `clips.max_in_progress`; its length is held to
/// `clips.max_duration` once (every angle covers the same range); its scratch room is twice
/// its angles' segments, since the MP4s and the ZIP exist together while it is packed. Its
/// files are removed when the reservation ends, on every path.
extension ClipRoutes {
    func addSetRoute<Context: RequestContext>(to router: Router<Context>) {
        router.get("/api/sets/:set/clip.zip") { request, context in
            let set = context.parameters.get("set") ?? ""
            let plan: SetClipPlan
            switch setPlan(set: set, query: request.uri.query, limit: ViewerAccess.variantLimit(of: request)) {
            case let .success(made): plan = made
            case let .failure(refusal): return Response(refusal)
            }
            if let refusal = scratch.bounds.refusal(duration: plan.duration) { return Response(refusal) }
            var headers = Self.download("application/zip", named: plan.baseName + ".zip")
            if request.method == .head { return Response(status: .ok, headers: headers, body: ResponseBody { try await $0.finish(nil) }) }
            let bytes = plan.angles.reduce(0) { $0 &+ plannedBytes($1.plan, stream: $1.stream) }
            let reservation: ClipScratch.Reservation
            switch scratch.reserve(bytes: bytes.multipliedReportingOverflow(by: 2).overflow ? .max : bytes * 2) {
            case let .success(taken): reservation = taken
            case let .failure(refusal): return Response(refusal)
            }
            var entries: [ArchiveEntry] = []
            var first: ClipMade?
            for angle in plan.angles {
                let path = "\(scratchDirectory)/\(UInt64.random(in: 0...UInt64.max)).mp4"
                reservation.holds(path)
                do {
                    let made = try await maker.makeClip(segments: angle.plan.segments, start: angle.plan.start, end: angle.plan.end, into: path)
                    first = first ?? made
                } catch {
                    return Response(Refusal(.internalError, "angle '\(angle.stream)': the clip could not be made: \(error)", audience: .operators))
                }
                entries.append(ArchiveEntry(name: angle.fileName, path: path))
            }
            let archive = "\(scratchDirectory)/\(UInt64.random(in: 0...UInt64.max)).zip"
            reservation.holds(archive)
            let size: Int
            do {
                size = try await maker.makeArchive(entries, into: archive)
            } catch {
                return Response(Refusal(.internalError, "the ZIP could not be made: \(error)", audience: .operators))
            }
            headers[.contentLength] = String(size)
            // The default angle's cut: every angle starts on the same slot's keyframe.
            if let first {
                headers[HTTPField.Name("X-Clip-Snapped-By")!] = String(format: "%.3f", first.snappedBy)
                if let date = plan.startDate { headers[HTTPField.Name("X-Clip-Start")!] = ProgramDateTime.format(date.addingTimeInterval(-first.snappedBy)) }
                headers[HTTPField.Name("X-Clip-Duration")!] = String(format: "%.3f", first.duration)
            }
            return Self.sending(archive, headers: headers, holding: reservation)
        }
    }

    /// The set's clip: every angle's recording (the variant as `clip.mp4` chooses it), cut by
    /// the default angle's window. 404 for an unknown set; an angle's refusal names it.
    func setPlan(set: String, query: String?, limit: String?) -> Result<SetClipPlan, Refusal> {
        let angles: [String]
        do { angles = try registry.existingSet(set).streams } catch { return .failure(error) }
        var recordings: [SetClipPlan.Recording] = []
        for angle in angles {
            switch ClipPlan.recording(stream: angle, query: query, limit: limit, registry: registry) {
            case let .success(recording): recordings.append(recording)
            case let .failure(refusal): return .failure(Refusal(refusal.kind, "angle '\(angle)': \(refusal.reason)", cache: refusal.cache))
            }
        }
        switch TimeWindow.parse(start: QueryParameter.value("start", in: query), end: QueryParameter.value("end", in: query)) {
        case let .success(window): return SetClipPlan.plan(set: set, angles: recordings, window: window)
        case let .failure(rejection): return .failure(.malformed(rejection.message))
        }
    }
}
