import Foundation
import HLSPlaylist
import OriginPolicy
import OriginRegistry
import OriginState

/// Markers of an angle set: one request marks every angle with the same marker (one id, one
/// moment, one label), so every angle's playlists carry it and the page lists it once. The
/// angles share one timeline (the same program date-times per slot), so one moment is the same
/// play in every angle.
extension MarkerBook {
    /// Checks the body against the set's recording (from its earliest angle's first entry to
    /// its latest angle's end, live while any angle is), keeps the marker in every angle's
    /// `markers.json`, and only then shows it in every angle's playlists: all or none. An angle
    /// that cannot take it (removed, unknown, its file not written) refuses the whole request.
    public func add(set: String, angles: [String], body: [UInt8]) throws(Refusal) -> Marker {
        let streams = try angleStreams(set: set, angles: angles)
        let now = wallClock()
        let spans = streams.compactMap { Self.recordingSpan(of: $0.stream) }
        let recording = spans.reduce(nil as ClosedRange<Date>?) { union, span in union.map { min($0.lowerBound, span.lowerBound)...max($0.upperBound, span.upperBound) } ?? span }
        let context = MarkerRequest.Context(now: now, recording: recording, live: streams.contains { $0.stream.phase != .ended },
                                            nextSequence: Self.nextSequence(of: streams[0].stream), id: newID(at: now))
        let marker: Marker
        switch MarkerRequest.marker(from: body, context: context) {
        case let .success(made): marker = made
        case let .failure(rejection): throw Refusal(.malformedRequest, rejection.description, audience: .operators)
        }
        for angle in streams { try Self.refuseTaken(marker.id, in: angle.stream, angle.name) }
        // Each angle lists it just before its own next entry, so its live playlists only append.
        try keepAll(streams.map { angle in
            var own = marker
            own.listedBefore = Self.nextSequence(of: angle.stream)
            return (angle.name, angle.stream.markers, angle.stream.markers + [own])
        })
        return marker
    }

    /// Removes marker `id` from every angle that has it (one removed from a single angle
    /// through the stream's own route is gone there already); 404 when no angle has it.
    public func remove(set: String, angles: [String], id: String) throws(Refusal) {
        let holding = try angleStreams(set: set, angles: angles).filter { $0.stream.markers.contains { $0.id == id } }
        guard !holding.isEmpty else {
            throw Refusal(.noSuchMarker, "set '\(set)' has no marker '\(id)'", audience: .operators)
        }
        try keepAll(holding.map { ($0.name, $0.stream.markers, $0.stream.markers.filter { $0.id != id }) })
    }

    /// Every angle of the set as the registry has it; 409 naming the angle when one cannot be
    /// marked (removed, or not served by this server).
    private func angleStreams(set: String, angles: [String]) throws(Refusal) -> [(name: String, stream: StreamRegistry.Stream)] {
        var streams: [(name: String, stream: StreamRegistry.Stream)] = []
        for name in angles {
            do {
                streams.append((name, try registry.existing(name)))
            } catch {
                throw Refusal(.conflict, "set '\(set)' cannot be marked: its angle '\(name)' cannot take a marker (\(error.reason)); take it out of the set's angle_sets entry, or mark the other angles one by one",
                              audience: .operators)
            }
        }
        guard !streams.isEmpty else { throw Refusal(.noSuchResource, "set '\(set)' has no angle", audience: .operators) }
        return streams
    }

    /// Writes every angle's new list, then shows them all. When one write fails, the lists
    /// already written are put back, so no angle keeps a marker the others do not have.
    private func keepAll(_ changes: [(stream: String, before: [Marker], after: [Marker])]) throws(Refusal) {
        for (index, change) in changes.enumerated() {
            do {
                try save(change.after, of: change.stream)
            } catch {
                for written in changes[..<index] { try? save(written.before, of: written.stream) }
                throw Refusal(.internalError, "angle '\(change.stream)': \(error.reason); no angle was changed", audience: .operators)
            }
        }
        for change in changes { registry.apply(.markers(stream: change.stream, change.after)) }
    }
}
