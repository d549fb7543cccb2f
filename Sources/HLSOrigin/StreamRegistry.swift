import Foundation
import HLSPlaylist
import NIOCore
import OriginPolicy
import SidelineCore
import Synchronization

/// The one source of truth for what the origin serves: for each stream, its phase, the
/// rendered playlists (kept as ready-to-send bytes, replaced whole on each new version) and
/// the segments they list. The pipeline side publishes; request handlers take cheap snapshots.
public final class StreamRegistry: Sendable {
    public typealias Phase = StatusPolicy.StreamPhase

    public struct SegmentFile: Sendable, Equatable {
        public let path: String
        public let size: Int
        /// EXTINF, in seconds.
        public let duration: Double
        /// What stands in this entry's slot when it is not the variant's own picture:
        /// `stand-in` (the slate, or the last picture held) or `sibling` (another rung's
        /// segment). Said to players in `CMSD-Static`. Nil for the variant's own segment, and
        /// for entries read back from disk at a restart (the recording does not say).
        public let fill: String?
        public init(path: String, size: Int, duration: Double = 0, fill: String? = nil) {
            self.path = path
            self.size = size
            self.duration = duration
            self.fill = fill
        }
    }

    public struct Variant: Sendable {
        /// Rendered playlists as ready-to-send bytes (plain and gzip): internal, so the
        /// registry's public API stays free of NIO types (read them as text with `playlistText`).
        var playlist: ServedMediaPlaylist?
        var iFramePlaylist: ServedMediaPlaylist?
        public var segments: [String: SegmentFile] = [:]
        /// Entries listed as EXT-X-GAP: named in the playlist, never a file.
        public var gaps: Set<String> = []
        /// What `/api/streams` says of the variant (`VariantStatus`).
        public var status = VariantStatus()

        /// The full playlist as served (with EXT-X-SERVER-CONTROL while live).
        public var playlistText: String? { playlist.map { String(buffer: $0.full.plain) } }
        public var iFramePlaylistText: String? { iFramePlaylist.map { String(buffer: $0.full.plain) } }
        /// The media playlist as recorded (without markers), nil before the first entry.
        public var recording: MediaPlaylist? { playlist?.playlist }
        /// The media sequence number of the last entry listed, nil before the first.
        public var lastSequence: Int? { playlist?.lastSequence }
    }

    public struct Stream: Sendable {
        public var title: String
        /// What the stream says about itself beside its title (config, or what a pusher sends).
        public var description = ""
        public var keywords = ""
        public var phase: Phase
        public var targetDuration: Int
        /// The master as published (a value: the set's master and the VOD masters are made
        /// from it, never from the bytes rendered of it).
        public internal(set) var masterPlaylist: MultivariantPlaylist?
        /// `masterPlaylist` as served.
        var master: RenderedPlaylist?
        /// The master with one variant each (`MultivariantPlaylist.limited`), rendered with
        /// it: for viewers whose credential covers that variant only.
        var limitedMasters: [String: RenderedPlaylist] = [:]
        public var masterText: String? { master.map { String(buffer: $0.plain) } }
        public var variants: [String: Variant]
        /// The variant names in ladder order, best first.
        public var variantOrder: [String]
        /// The analysts' markers, in every variant's media playlist (`Marker`), oldest first.
        public var markers: [Marker] = []
        /// Counts changes of `markers`, so a version rendered with older markers is rendered again.
        var markerVersion = 0
    }

    /// Internal, not private: the registry's extensions (publication, status, markers,
    /// waiters) live in files of their own.
    let streams = Mutex<[String: Stream]>([:])
    /// Entity tags: this process's epoch and a counter, so no two versions share a tag, even
    /// across restarts.
    private let epoch = String(UInt32.random(in: 0...UInt32.max), radix: 36)
    private let versions = Atomic<Int>(0)

    /// Requests held by blocking reload.
    let waiters: PlaylistWaiters
    /// Delta updates and blocking reload on live media playlists.
    public let offer: ServedMediaPlaylist.Offer

    private func nextTag() -> String {
        "\(epoch)-\(String(versions.add(1, ordering: .relaxed).newValue, radix: 36))"
    }

    /// Renders (and compresses) one playlist version; call outside the registry's lock.
    private func render(_ text: String) -> RenderedPlaylist {
        RenderedPlaylist(text: text, tag: nextTag())
    }

    /// Renders a media playlist version in all its served forms; outside the registry's lock.
    func render(_ playlist: LiveMediaPlaylist, markers: [Marker] = []) -> ServedMediaPlaylist {
        ServedMediaPlaylist(playlist, markers: markers, offer: offer, tag: nextTag())
    }

    /// Monotonic seconds; injectable so tests move time instead of sleeping.
    public let clock: @Sendable () -> Double
    /// When this registry (the process) began serving: the stale clock starts no earlier.
    public let servingSince: Double

    /// The config's angle sets (`AngleSet`), served beside the streams under their own names.
    public let angleSets: [AngleSet]
    /// Each set's master, rendered once per version of its angles' masters (`SetMaster`).
    let setMasters = VODRenditions()

    /// `sleep` is how a held blocking-reload request waits out its time (`MonotonicClock.sleep`
    /// unless a test simulates time); `clock` is what every staleness decision reads.
    public init(clock: @escaping @Sendable () -> Double = MonotonicClock.seconds,
                sleep: @escaping @Sendable (Double) async throws -> Void = MonotonicClock.sleep,
                offer: ServedMediaPlaylist.Offer = .init(), angleSets: [AngleSet] = []) {
        self.clock = clock
        self.waiters = PlaylistWaiters(sleep: sleep)
        self.offer = offer
        self.angleSets = angleSets
        self.servingSince = clock()
    }

    /// Announces a stream and its variants. Playlists answer 503 until they have content.
    public func register(stream: String, title: String = "", variants: [String], targetDuration: Int) {
        streams.withLock {
            $0[stream] = Stream(title: title, phase: .starting, targetDuration: targetDuration, master: nil,
                                 variants: Dictionary(uniqueKeysWithValues: variants.map { ($0, Variant()) }), variantOrder: variants)
        }
    }

    /// The one way in for what a variant lists: a segment of the encoder, a late replacement,
    /// a mirror's batch, a gap, new playlists, or a recording read back at a start
    /// (`Publication`). Renders the version outside the lock, stores it, and answers the
    /// requests held for what it lists (except a restore: nothing waits on a start).
    public func publish(_ publication: Publication) {
        let iFrames = publication.iFrames.map { render($0) }
        let now = clock()
        let playlist = storeVersion(stream: publication.stream, publication.playlist) { entry, playlist in
            entry.take(publication, playlist: playlist, iFrames: iFrames, now: now)
        }
        if case .restored = publication.source { return }
        wakeWaiters(stream: publication.stream, variant: publication.variant, playlist: playlist, iFrames: iFrames)
    }

    /// The stream's master, as a value: rendered once here (and once per variant a credential
    /// may be limited to), kept as it is for what is made from it.
    public func setMaster(stream: String, _ master: MultivariantPlaylist) {
        let bytes = render(master.render())
        var limited: [String: RenderedPlaylist] = [:]
        for uri in master.variants.map(\.uri) {
            let components = uri.split(separator: "/")
            guard components.count >= 2 else { continue }
            let variant = String(components[components.count - 2])
            if limited[variant] == nil, let one = master.limited(toVariant: variant) { limited[variant] = render(one.render()) }
        }
        streams.withLock {
            $0[stream]?.masterPlaylist = master
            $0[stream]?.master = bytes
            $0[stream]?.limitedMasters = limited
        }
    }

    /// The stream's title, description and keywords, as `/api/streams` shows them.
    public func setMetadata(stream: String, title: String, description: String, keywords: String) {
        streams.withLock { streams in
            streams[stream]?.title = title
            streams[stream]?.description = description
            streams[stream]?.keywords = keywords
        }
    }

    public func setPhase(stream: String, _ phase: Phase) {
        streams.withLock { $0[stream]?.phase = phase }
        if phase == .ended || phase == .removed { waiters.wakeAll(stream: stream) }
    }

    public func stream(named name: String) -> Stream? {
        streams.withLock { $0[name] }
    }

    public var streamNames: [String] { streams.withLock { Array($0.keys).sorted() } }
}
