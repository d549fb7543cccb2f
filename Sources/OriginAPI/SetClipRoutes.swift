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
///
/// An angle another box serves (issue 35, `boxes`) is that box's `clip.mp4` of the same program
/// date-times (the boxes share the universal grid, so the same slots and keyframes), fetched
/// with the caller's credential into the scratch room; one that box does not give refuses the
/// whole clip (502 naming the angle). Its download is bounded by twice the largest of this box's
/// angles' (at least 1 MiB), and that much scratch room is reserved for it.
extension ClipRoutes {
    func addSetRoute<Context: RequestContext>(to router: Router<Context>) {
        router.get("/api/sets/:set/clip.zip") { request, context in
            let set = context.parameters.get("set") ?? ""
            let plan: SetClipPlan
            let remote: [String]
            switch setPlan(set: set, query: request.uri.query, limit: ViewerAccess.variantLimit(of: request)) {
            case let .success(made): (plan, remote) = made
            case let .failure(refusal): return Response(refusal)
            }
            if let refusal = scratch.bounds.refusal(duration: plan.duration) { return Response(refusal) }
            var headers = Self.download("application/zip", named: plan.baseName + ".zip")
            if request.method == .head { return Response(status: .ok, headers: headers, body: ResponseBody { try await $0.finish(nil) }) }
            let perAngle = plan.angles.map { plannedBytes($0.plan, stream: $0.stream) }
            let remoteLimit = max(perAngle.max() ?? 0, 1 << 20).multipliedReportingOverflow(by: 2).partialValue
            let bytes = (perAngle + remote.map { _ in remoteLimit }).reduce(0) { total, more in
                let (sum, overflow) = total.addingReportingOverflow(more)
                return overflow ? .max : sum
            }
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
            if !remote.isEmpty, let boxes {
                guard let start = plan.startDate else {
                    return Response(Refusal(.conflict, "set '\(set)' has angles on other boxes, which are cut by program date-time, and its recording has none", audience: .operators))
                }
                var query = "start=" + ProgramDateTime.format(start) + "&end=" + ProgramDateTime.format(start.addingTimeInterval(plan.duration))
                if let variant = QueryParameter.value("variant", in: request.uri.query) { query += "&variant=" + (variant.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }
                for angle in remote {
                    guard let base = boxes.bases[angle] else { continue }
                    let path = "\(scratchDirectory)/\(UInt64.random(in: 0...UInt64.max)).mp4"
                    reservation.holds(path)
                    let answer = await boxes.calls.send(.get, url: "\(base)\(ViewerAccess.pathPrefix(of: request))/api/streams/\(angle)/clip.mp4?\(query)", body: nil,
                                                        authorization: request.headers[.authorization], saveTo: path,
                                                        limit: remoteLimit, timeout: 25)
                    guard answer?.is(200) == true else {
                        return Response(VenueBoxes.failed(angle, "give its clip", answer: answer))
                    }
                    entries.append(ArchiveEntry(name: "\(plan.set)-\(angle).mp4", path: path))
                }
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
    /// the window of the first angle this box encodes; and the angles other boxes serve, cut
    /// there. 404 for an unknown set; an angle's refusal names it.
    func setPlan(set: String, query: String?, limit: String?) -> Result<(SetClipPlan, remote: [String]), Refusal> {
        let all: [String]
        do { all = try registry.existingSet(set).streams } catch { return .failure(error) }
        let (angles, remote) = boxes?.split(all) ?? (all, [])
        guard !angles.isEmpty else {
            return .failure(Refusal(.conflict, "set '\(set)' has no angle this box encodes: ask a box that encodes one for its clip"))
        }
        var recordings: [SetClipPlan.Recording] = []
        for angle in angles {
            switch ClipPlan.recording(stream: angle, query: query, limit: limit, registry: registry) {
            case let .success(recording): recordings.append(recording)
            case let .failure(refusal): return .failure(Refusal(refusal.kind, "angle '\(angle)': \(refusal.reason)", cache: refusal.cache))
            }
        }
        switch TimeWindow.parse(start: QueryParameter.value("start", in: query), end: QueryParameter.value("end", in: query)) {
        case let .success(window): return SetClipPlan.plan(set: set, angles: recordings, window: window).map { ($0, remote) }
        case let .failure(rejection): return .failure(.malformed(rejection.message))
        }
    }
}
