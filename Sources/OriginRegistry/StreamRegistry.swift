import Foundation
import HLSPlaylist
import NIOCore
import OriginPolicy
import OriginState
import SidelineCore
import Synchronization

/// What the origin serves, held for the request handlers: the published state (`OriginState`,
/// plain values changed only by `apply`) and, beside it, what was rendered of it (`Served`: the
/// playlists as ready-to-send bytes, plain and gzip, replaced whole on each new version), under
/// one lock; and the requests held by blocking reload. Changes come in as values
/// (`apply(_:)`); renderings are made outside the lock and stored only over older versions.
public final class StreamRegistry: Sendable {
    public typealias Phase = OriginState.Phase
    public typealias Stream = OriginState.Stream
    public typealias Variant = OriginState.Variant
    public typealias SegmentFile = OriginState.SegmentFile
    public typealias AngleSet = OriginState.AngleSet
    public typealias VariantStatus = OriginState.VariantStatus
    public typealias Publication = OriginChange.Publication

    /// What was rendered of one stream's state.
    public struct Served: Sendable {
        /// The master as served, and its version (`OriginState.Stream.masterVersion`).
        public internal(set) var master: RenderedPlaylist?
        var masterVersion = 0
        /// The master with one variant each (`MultivariantPlaylist.limited`), rendered with
        /// it: for viewers whose credential covers that variant only.
        public internal(set) var limitedMasters: [String: RenderedPlaylist] = [:]
        public internal(set) var variants: [String: ServedVariant] = [:]
        /// The revision the stream was registered at: nothing older is stored.
        let floor: Int
    }

    /// One variant's playlists as served, each with the version it was rendered for.
    public struct ServedVariant: Sendable {
        public internal(set) var playlist: ServedMediaPlaylist?
        var version = 0
        public internal(set) var iFrames: ServedMediaPlaylist?
        var iFramesVersion = 0
        /// The parts of the segment being made (Low-Latency HLS), in order, until the version
        /// that lists the segment: each request for one is answered from these bytes.
        var openParts: [OpenPart] = []
    }

    /// One part of the segment being made, ready to send.
    struct OpenPart: Sendable {
        let sequence: Int
        let index: Int
        let bytes: ByteBuffer
    }

    /// A stream as one request sees it: its state and what was rendered of it, read together.
    public struct Snapshot: Sendable {
        public let stream: Stream
        public let served: Served
    }

    struct Published {
        var state: OriginState
        var served: [String: Served] = [:]
        /// `state.steering` as the JSON every stream's steering manifest answers.
        var steeringManifest: (manifest: ByteBuffer, timeToLive: Int)?
    }

    /// Internal, not private: the registry's extensions (waiters, angle sets, text) live in
    /// files of their own.
    let published: Mutex<Published>
    /// Entity tags: this process's epoch and a counter, so no two versions share a tag, even
    /// across restarts.
    let epoch = String(UInt32.random(in: 0...UInt32.max), radix: 36)
    private let tags = Atomic<Int>(0)

    /// Requests held by blocking reload.
    let waiters: PlaylistWaiters
    /// Delta updates and blocking reload on live media playlists.
    public let offer: ServedMediaPlaylist.Offer

    /// Monotonic seconds; injectable so tests move time instead of sleeping.
    public let clock: @Sendable () -> Double
    /// When this registry (the process) began serving: the stale clock starts no earlier.
    public let servingSince: Double

    /// The config's angle sets, served beside the streams under their own names.
    public let angleSets: [AngleSet]
    /// Each set's master, rendered once per version of its angles' masters (`SetMaster`).
    let setMasters = VODRenditions()

    /// `sleep` is how a held blocking-reload request waits out its time (`MonotonicClock.sleep`
    /// unless a test simulates time); `clock` is what every staleness decision reads.
    public init(clock: @escaping @Sendable () -> Double = MonotonicClock.seconds,
                sleep: @escaping @Sendable (Double) async throws -> Void = MonotonicClock.sleep,
                offer: ServedMediaPlaylist.Offer = .init(), angleSets: [AngleSet] = [], remoteAngles: [String: String] = [:],
                setsServedElsewhere: Set<String> = [], setPathways: SetMaster.Pathways? = nil) {
        self.clock = clock
        self.waiters = PlaylistWaiters(sleep: sleep)
        self.offer = offer
        self.angleSets = angleSets
        self.remoteAngleNames = Set(remoteAngles.keys)
        self.setsServedElsewhere = setsServedElsewhere
        self.published = Mutex(Published(state: OriginState(angleSets: angleSets, remoteAngles: remoteAngles, setPathways: setPathways)))
        self.servingSince = clock()
    }

    func nextTag() -> String {
        "\(epoch)-\(String(tags.add(1, ordering: .relaxed).newValue, radix: 36))"
    }

    public func stream(named name: String) -> Stream? {
        published.withLock { $0.state.streams[name] }
    }

    /// The stream and what was rendered of it, read under one lock.
    public func snapshot(of name: String) -> Snapshot? {
        published.withLock { p in p.state.streams[name].map { Snapshot(stream: $0, served: p.served[name] ?? Served(floor: 0)) } }
    }

    public var streamNames: [String] { published.withLock { Array($0.state.streams.keys).sorted() } }

    /// The one stream lookup of every route (`OriginState.existing`): the stream, or 404 / 410.
    public func existing(_ name: String) throws(Refusal) -> Stream {
        if let refusal = servedElsewhere(name) { throw refusal }
        return try published.withLock { published throws(Refusal) in try published.state.existing(name) }
    }

    /// `existing` with what was rendered of the stream, read under the same lock: for answers
    /// made from both (a VOD rendition tagged by a rendering, made from the state's markers).
    public func existingSnapshot(_ name: String) throws(Refusal) -> Snapshot {
        if let refusal = servedElsewhere(name) { throw refusal }
        return try published.withLock { published throws(Refusal) in
            Snapshot(stream: try published.state.existing(name), served: published.served[name] ?? Served(floor: 0))
        }
    }

    /// The streams other boxes serve (the config's `boxes`, which never change): read without
    /// the lock, on the path of a request for a name this box does not serve.
    public let remoteAngleNames: Set<String>
    /// The sets another box serves that this box lists for its angles' sake
    /// (`SidelineConfiguration.isServedHere`): asked here, they answer where they are served.
    public let setsServedElsewhere: Set<String>

    /// The 404 for a name another box of the venue serves (a stream, or a set this box lists
    /// for its angles' sake), saying so; nil for a name of this box's. Read without the lock.
    public func servedElsewhere(_ name: String) -> Refusal? {
        if remoteAngleNames.contains(name) { return .servedByAnotherBox(name) }
        return setsServedElsewhere.contains(name) ? .setServedByAnotherBox(name) : nil
    }

    /// The steering manifest this box serves for every stream and set (`OriginChange.steering`),
    /// nil on a box with no pair.
    public var steeringManifest: (manifest: ByteBuffer, timeToLive: Int)? {
        published.withLock { $0.steeringManifest }
    }

    /// What this box knows of the angles other boxes serve (`OriginState.RemoteAngle`).
    public var remoteAngles: [String: OriginState.RemoteAngle] {
        published.withLock { $0.state.remoteAngles }
    }

    /// The config's sets never change: looked up without the lock (every master request asks).
    public func angleSet(named name: String) -> AngleSet? {
        angleSets.first { $0.name == name }
    }

    /// The one set lookup of every set route: the set, or 404 (`Refusal.noSuchSet`, or
    /// `Refusal.setServedByAnotherBox` for a set another box serves).
    public func existingSet(_ name: String) throws(Refusal) -> AngleSet {
        guard let set = angleSet(named: name) else {
            throw setsServedElsewhere.contains(name) ? Refusal.setServedByAnotherBox(name) : Refusal.noSuchSet(name)
        }
        return set
    }
}
