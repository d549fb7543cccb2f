import Foundation
import HLSOrigin
import HLSPlaylist
import Hummingbird
import NIOCore
import OriginPolicy
import OriginRegistry
import OriginState

/// `/api/sets/{set}/markers`: the markers of an angle set. POST takes the body and the token
/// of `POST /api/streams/{stream}/markers` and marks every angle at once (`MarkerBook.add(set:)`);
/// GET lists the first of this box's angles' markers (which carry every set marker) in the
/// stream list's shape, with `set` beside `stream`; `DELETE .../markers/{id}` removes one from
/// every angle.
///
/// An angle another box serves (issue 35, `boxes`) is marked through that box's
/// `POST /api/streams/{angle}/markers`, with the same id, the same moment (as a program
/// date-time) and the caller's token: all or none, so when that box does not take it, the
/// angles marked already are unmarked and the answer is 502 naming the angle.
extension MarkerRoutes {
    func addSetRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/api/sets/:set/markers") { _, context in
            let set = context.parameters.get("set") ?? ""
            let listing: Listing
            do throws(Refusal) {
                let angle = try localAngles(of: set)[0]
                listing = Listing(set: set, stream: angle, markers: try self.listing(of: angle))
            } catch {
                return Response(error)
            }
            return try Self.json(.ok, listing)
        }
        let writing = router.group("/api/sets/:set/markers")
            .add(middleware: OperatorTokenMiddleware(check: self.writing))
        writing.post { request, context in
            let set = context.parameters.get("set") ?? ""
            let body = try await request.body.collect(upTo: 16 << 10)
            let authorization = request.headers[.authorization]
            do throws(Refusal) {
                let angles = try angles(of: set)
                let (local, remote) = boxes?.split(angles) ?? (angles, [])
                let marker = try await book.add(set: set, angles: try Self.someLocal(local, of: set), body: Array(buffer: body))
                if let boxes, var refusal = await Self.mark(remote, with: marker, through: boxes, authorization: authorization) {
                    do throws(Refusal) {
                        try await book.remove(set: set, angles: local, id: marker.id)
                    } catch {
                        refusal.reason += "; this box's angles keep the marker, as removing it failed (\(error.reason)): DELETE /api/sets/\(set)/markers/\(marker.id)"
                    }
                    return Response(refusal)
                }
                return Self.created(marker, in: "/api/sets/\(set)/markers")
            } catch {
                return Response(error)
            }
        }
        writing.delete(":id") { request, context in
            let set = context.parameters.get("set") ?? ""
            let id = context.parameters.get("id") ?? ""
            do throws(Refusal) {
                let angles = try angles(of: set)
                let (local, remote) = boxes?.split(angles) ?? (angles, [])
                // Only an id of the shape a box makes goes into another box's URL.
                guard MarkerRequest.isMarkerID(id) else { throw Refusal(.noSuchMarker, "set '\(set)' has no marker '\(id)'", audience: .operators) }
                // The other boxes first, every one asked: when one does not answer, this box's
                // angles keep the marker too, and the same DELETE again finishes the job.
                if let boxes {
                    let kept = await Self.unmark(remote, id: id, through: boxes, authorization: request.headers[.authorization])
                    if !kept.isEmpty {
                        return Response(Refusal(.upstreamFailed, "angles \(kept.map { "'\($0)'" }.joined(separator: ", ")) are served by other boxes of the venue, which did not remove the marker; the other angles' boxes did, and this box's angles keep it: send the same DELETE again", audience: .operators))
                    }
                }
                try await book.remove(set: set, angles: try Self.someLocal(local, of: set), id: id)
                return Self.removed
            } catch {
                return Response(error)
            }
        }
    }

    /// The set's angles, default first, or the 404 an unknown set gets (to an analyst's call).
    func angles(of set: String) throws(Refusal) -> [String] {
        let angles: [String]
        do {
            angles = try registry.existingSet(set).streams
        } catch {
            throw error.forOperators()
        }
        guard !angles.isEmpty else { throw Refusal(.noSuchResource, "set '\(set)' has no angle", audience: .operators) }
        return angles
    }

    /// The set's angles this box encodes, default first; 409 when it encodes none.
    func localAngles(of set: String) throws(Refusal) -> [String] {
        let angles = try angles(of: set)
        return try Self.someLocal(boxes?.split(angles).local ?? angles, of: set)
    }

    static func someLocal(_ local: [String], of set: String) throws(Refusal) -> [String] {
        guard !local.isEmpty else {
            throw Refusal(.conflict, "set '\(set)' has no angle this box encodes: mark it on a box that encodes one (its markers are kept with its angles)", audience: .operators)
        }
        return local
    }

    /// Marks each of `remote` on its box; on the first that does not take it, unmarks those
    /// that did, and that one too (it may have kept it and answered too late), and gives the
    /// refusal, naming any box that kept the marker all the same.
    static func mark(_ remote: [String], with marker: Marker, through boxes: VenueBoxes, authorization: String?) async -> Refusal? {
        var marked: [String] = []
        for angle in remote {
            guard let base = boxes.bases[angle] else { continue }
            let answer = await boxes.calls.send(.post, url: "\(base)/api/streams/\(angle)/markers", body: MarkerRequest.forwarded(marker),
                                                authorization: authorization, saveTo: nil, limit: 64 << 10, timeout: 5)
            guard answer?.is(201) == true else {
                let kept = await unmark(marked + [angle], id: marker.id, through: boxes, authorization: authorization)
                var refusal = VenueBoxes.failed(angle, "take the marker", answer: answer)
                refusal.reason += kept.isEmpty ? "; no angle was marked" : "; angles \(kept.map { "'\($0)'" }.joined(separator: ", ")) could not be unmarked: DELETE /api/sets/<set>/markers/\(marker.id)"
                return refusal
            }
            marked.append(angle)
        }
        return nil
    }

    /// Removes marker `id` from each of `remote` on its box (one that does not have it is
    /// done); the angles whose box did not say so, in order. Every box is asked.
    static func unmark(_ remote: [String], id: String, through boxes: VenueBoxes, authorization: String?) async -> [String] {
        var kept: [String] = []
        for angle in remote {
            guard let base = boxes.bases[angle] else { continue }
            let answer = await boxes.calls.send(.delete, url: "\(base)/api/streams/\(angle)/markers/\(id)", body: nil,
                                                authorization: authorization, saveTo: nil, limit: 64 << 10, timeout: 5)
            if !(answer?.is(204) == true || answer?.is(404) == true) { kept.append(angle) }
        }
        return kept
    }
}
