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
/// GET lists the default angle's markers (which carry every set marker) in the stream list's
/// shape, with `set` beside `stream`; `DELETE .../markers/{id}` removes one from every angle.
extension MarkerRoutes {
    func addSetRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/api/sets/:set/markers") { _, context in
            let set = context.parameters.get("set") ?? ""
            let listing: Listing
            do throws(Refusal) {
                let angles = try self.angles(of: set)
                listing = Listing(set: set, stream: angles[0], markers: try self.listing(of: angles[0]))
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
            do throws(Refusal) {
                return Self.created(try await book.add(set: set, angles: try angles(of: set), body: Array(buffer: body)), in: "/api/sets/\(set)/markers")
            } catch {
                return Response(error)
            }
        }
        writing.delete(":id") { _, context in
            let set = context.parameters.get("set") ?? ""
            do throws(Refusal) {
                try await book.remove(set: set, angles: try angles(of: set), id: context.parameters.get("id") ?? "")
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
}
