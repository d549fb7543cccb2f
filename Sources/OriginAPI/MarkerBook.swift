import Foundation
import HLSPlaylist
import OriginPolicy
import OriginRegistry
import OriginState
import SegmentStore

/// Adds and removes markers, one change at a time across the whole server: each change is
/// kept on disk (`markers.json`, atomically) before the playlists show it, so a marker a player
/// has seen survives a restart, and two analysts marking at once both keep their marker.
/// The file is a few kilobytes written once per change (a person pressing a button, not a
/// request path players use), so its write and fsync run here rather than on a thread of
/// their own.
public actor MarkerBook {
    let registry: StreamRegistry
    let dataDirectory: String
    let wallClock: @Sendable () -> Date
    private var counter = 0

    public init(registry: StreamRegistry, dataDirectory: String, wallClock: @escaping @Sendable () -> Date = Date.init) {
        self.registry = registry
        self.dataDirectory = dataDirectory
        self.wallClock = wallClock
    }

    /// Checks the request body against the stream's recording, keeps the marker and shows it in
    /// every variant's playlist.
    public func add(stream name: String, body: [UInt8]) throws(Refusal) -> Marker {
        let stream = try Self.existing(registry, name)
        let now = wallClock()
        let context = MarkerRequest.Context(now: now, recording: Self.recordingSpan(of: stream), live: stream.phase != .ended,
                                            nextSequence: Self.nextSequence(of: stream), id: newID(at: now))
        let marker: Marker
        switch MarkerRequest.marker(from: body, context: context) {
        case let .success(made): marker = made
        case let .failure(rejection): throw Refusal(.malformedRequest, rejection.description, audience: .operators)
        }
        try Self.refuseTaken(marker.id, in: stream, name)
        try keep(stream.markers + [marker], of: name)
        return marker
    }

    /// Removes the marker `id`. Players that already read its DATERANGE keep it until they
    /// reload; the next version of every playlist leaves it out.
    public func remove(stream name: String, id: String) throws(Refusal) {
        let stream = try Self.existing(registry, name)
        guard stream.markers.contains(where: { $0.id == id }) else {
            throw Refusal(.noSuchMarker, "stream '\(name)' has no marker '\(id)'", audience: .operators)
        }
        try keep(stream.markers.filter { $0.id != id }, of: name)
    }

    /// An id given in the body (`MarkerRequest`: a set's marker from another box) that the
    /// stream has already: 409, the marker is kept once.
    static func refuseTaken(_ id: String, in stream: StreamRegistry.Stream, _ name: String) throws(Refusal) {
        guard stream.markers.contains(where: { $0.id == id }) else { return }
        throw Refusal(.conflict, "stream '\(name)' has a marker '\(id)' already", audience: .operators)
    }

    /// A marker id no other marker of this server has: the time and a counter.
    func newID(at now: Date) -> String {
        counter += 1
        return "m-" + String(Int64((now.timeIntervalSince1970 * 1000).rounded()), radix: 36) + "-" + String(counter, radix: 36)
    }

    func keep(_ markers: [Marker], of stream: String) throws(Refusal) {
        try save(markers, of: stream)
        registry.apply(.markers(stream: stream, markers))
    }

    /// Writes the stream's `markers.json`, without showing the change in its playlists yet.
    func save(_ markers: [Marker], of stream: String) throws(Refusal) {
        do {
            try MarkerFile.save(markers, in: StreamLayout(dataDirectory: dataDirectory, stream: stream))
        } catch {
            throw Refusal(.internalError, "the marker could not be kept: \(error)", audience: .operators)
        }
    }

    /// The stream, if it exists and was not removed: the registry's 404 or 410 otherwise, for
    /// an analyst's API call (a 410 may be kept: the stream will not come back).
    static func existing(_ registry: StreamRegistry, _ name: String) throws(Refusal) -> StreamRegistry.Stream {
        do {
            return try registry.existing(name)
        } catch {
            throw error.forOperators(cache: error.kind == .streamRemoved ? .gone : .noStore)
        }
    }

    /// The wall-clock span of the stream's recording: its best variant's entries.
    static func recordingSpan(of stream: StreamRegistry.Stream) -> ClosedRange<Date>? {
        stream.variantOrder.lazy.compactMap { stream.variants[$0]?.recording.flatMap { PlaylistTimes($0).dateSpan } }.first
    }

    /// The sequence number of the first entry no variant has published a line of (variants
    /// share slots): the next entry, or the one after it where a variant's parts of the next
    /// are out, since those parts went out under the entry's date ranges and date, and a
    /// marker placed before them would be a line inserted into what players read.
    static func nextSequence(of stream: StreamRegistry.Stream) -> Int {
        stream.variants.values.map { variant in
            (variant.lastSequence.map { $0 + 1 } ?? 0) + (variant.edge?.openParts.isEmpty == false ? 1 : 0)
        }.max() ?? 0
    }
}
