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
        public var recorded = Recorded()
        /// Why the variant's encoder stopped, while it is failed; nil while healthy.
        public var failure: String?
        /// When this process last published an entry of this variant (registry clock).
        public var lastPublished: Double?
        /// The last write to the data directory that failed, while writes fail; nil when fine.
        public var writeError: String?
        /// How many effort steps below its configured preset the variant's encoder runs, and
        /// that step's name (`EncoderEffort`); 0 and nil while it runs as configured.
        public var effortStep = 0
        public var effortName: String?

        /// The full playlist as served (with EXT-X-SERVER-CONTROL while live).
        public var playlistText: String? { playlist.map { String(buffer: $0.full.plain) } }
        public var iFramePlaylistText: String? { iFramePlaylist.map { String(buffer: $0.full.plain) } }
        /// The media playlist as recorded (without markers), nil before the first entry.
        public var recording: MediaPlaylist? { playlist?.playlist }
        /// The media sequence number of the last entry listed, nil before the first.
        public var lastSequence: Int? { playlist?.lastSequence }
    }

    /// What a variant has recorded, for `/api/streams` and the logs.
    public struct Recorded: Sendable, Equatable {
        public var segments = 0
        public var duration = 0.0
        public var bytes = 0
        /// The highest bit rate of any one segment (bytes x 8 / duration).
        public var peakBitRate = 0.0

        mutating func add(bytes size: Int, duration: Double) {
            segments += 1
            self.duration += duration
            bytes += size
            if duration > 0 { peakBitRate = max(peakBitRate, Double(size * 8) / duration) }
        }

        public var averageBitRate: Double { duration > 0 ? Double(bytes * 8) / duration : 0 }
    }

    public struct Stream: Sendable {
        public var title: String
        /// What the stream says about itself beside its title (config, or what a pusher sends).
        public var description = ""
        public var keywords = ""
        public var phase: Phase
        public var targetDuration: Int
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

    private let streams = Mutex<[String: Stream]>([:])
    /// Entity tags: this process's epoch and a counter, so no two versions share a tag, even
    /// across restarts.
    private let epoch = String(UInt32.random(in: 0...UInt32.max), radix: 36)
    private let versions = Atomic<Int>(0)

    /// Requests held by blocking reload.
    private let waiters = PlaylistWaiters()
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
    private func render(_ playlist: LiveMediaPlaylist, markers: [Marker] = []) -> ServedMediaPlaylist {
        ServedMediaPlaylist(playlist, markers: markers, offer: offer, tag: nextTag())
    }

    /// Renders a variant's new media playlist version with the stream's markers (outside the
    /// lock), then applies `update` under the lock. A marker added or removed while it rendered
    /// makes it render again, so no version is stored with markers older than the stream's.
    @discardableResult
    private func storeVersion(stream: String, _ playlist: LiveMediaPlaylist, _ update: (inout Stream, ServedMediaPlaylist) -> Void) -> ServedMediaPlaylist {
        storeVersion(stream: stream, rendering: { render(playlist, markers: $0) }, update)
    }

    /// `storeVersion` with the rendering given: the seam a test uses to add a marker while a
    /// version renders.
    @discardableResult
    func storeVersion(stream: String, rendering render: ([Marker]) -> ServedMediaPlaylist, _ update: (inout Stream, ServedMediaPlaylist) -> Void) -> ServedMediaPlaylist {
        while true {
            let (markers, version) = streams.withLock { ($0[stream]?.markers ?? [], $0[stream]?.markerVersion ?? 0) }
            let rendered = render(markers)
            let stored = streams.withLock { streams -> Bool in
                guard var entry = streams[stream] else { return true }
                guard entry.markerVersion == version else { return false }
                update(&entry, rendered)
                streams[stream] = entry
                return true
            }
            if stored { return rendered }
        }
    }

    /// Replaces a stream's markers and renders every variant's media playlist again with them.
    /// The caller has kept them (`markers.json`) first: what a player sees survives a restart.
    public func setMarkers(stream: String, _ markers: [Marker]) {
        let current = streams.withLock { streams -> [String: ServedMediaPlaylist] in
            guard streams[stream] != nil else { return [:] }
            streams[stream]!.markers = markers
            streams[stream]!.markerVersion += 1
            return streams[stream]!.variants.compactMapValues(\.playlist)
        }
        for (variant, served) in current {
            // Replaces the version only if no publish came in between (a publish renders with
            // the new markers itself).
            let rendered = storeVersion(stream: stream, LiveMediaPlaylist(served.playlist)) { entry, rendered in
                if entry.variants[variant]?.playlist?.full.etag == served.full.etag { entry.variants[variant]?.playlist = rendered }
            }
            wakeWaiters(stream: stream, variant: variant, playlist: rendered, iFrames: nil)
        }
    }
    /// Monotonic seconds; injectable so tests move time instead of sleeping.
    public let clock: @Sendable () -> Double
    /// When this registry (the process) began serving: the stale clock starts no earlier.
    public let servingSince: Double

    public init(clock: @escaping @Sendable () -> Double = MonotonicClock.seconds, offer: ServedMediaPlaylist.Offer = .init()) {
        self.clock = clock
        self.offer = offer
        self.servingSince = clock()
    }

    /// Announces a stream and its variants. Playlists answer 503 until they have content.
    public func register(stream: String, title: String = "", variants: [String], targetDuration: Int) {
        streams.withLock {
            $0[stream] = Stream(title: title, phase: .starting, targetDuration: targetDuration, master: nil,
                                 variants: Dictionary(uniqueKeysWithValues: variants.map { ($0, Variant()) }), variantOrder: variants)
        }
    }

    /// Loads what an earlier run recorded, so it is served before anything new exists.
    public func restore(stream: String, variant: String, playlist: LiveMediaPlaylist, iFrames: LiveMediaPlaylist?, segments: [String: SegmentFile], gaps: Set<String> = []) {
        var recorded = Recorded()
        for file in segments.values { recorded.add(bytes: file.size, duration: file.duration) }
        let iFrames = iFrames.map { render($0) }
        storeVersion(stream: stream, playlist) { entry, playlist in
            entry.variants[variant] = Variant(playlist: playlist, iFramePlaylist: iFrames, segments: segments, gaps: gaps, recorded: recorded)
        }
    }

    /// Call after the segment file and the playlist listing it are on disk.
    public func publish(stream: String, variant: String, segmentName: String, file: SegmentFile, playlist: LiveMediaPlaylist, iFrames: LiveMediaPlaylist? = nil) {
        let iFrameBytes = iFrames.map { render($0) }
        let now = clock()
        let bytes = storeVersion(stream: stream, playlist) { entry, bytes in
            entry.variants[variant]?.segments[segmentName] = file
            entry.variants[variant]?.recorded.add(bytes: file.size, duration: file.duration)
            entry.variants[variant]?.playlist = bytes
            entry.variants[variant]?.lastPublished = now
            if let iFrameBytes { entry.variants[variant]?.iFramePlaylist = iFrameBytes }
            if entry.phase == .starting { entry.phase = .live }
        }
        wakeWaiters(stream: stream, variant: variant, playlist: bytes, iFrames: iFrameBytes)
    }

    /// Call after a late segment's file, and the playlist that names it as a replacement
    /// (`SegmentReplacement`), are on disk: the segment is served (for `/vod/`, clips and
    /// mirrors) and the new version of the live playlist, which only grew, is published.
    public func publishReplacement(stream: String, variant: String, segmentName: String, file: SegmentFile, playlist: LiveMediaPlaylist) {
        let bytes = storeVersion(stream: stream, playlist) { entry, bytes in
            entry.variants[variant]?.segments[segmentName] = file
            entry.variants[variant]?.playlist = bytes
        }
        wakeWaiters(stream: stream, variant: variant, playlist: bytes, iFrames: nil)
    }

    /// A mirror's new version of a variant: the segment files it has stored since the last
    /// version (on disk before this call) and the playlists that now list them. One render for
    /// a whole batch, so catching up after an outage costs one version, not one per segment.
    public func publishMirrored(stream: String, variant: String, newSegments: [String: SegmentFile], gaps: Set<String>,
                                playlist: LiveMediaPlaylist, iFrames: LiveMediaPlaylist?) {
        let iFrameBytes = iFrames.map { render($0) }
        let now = clock()
        let bytes = storeVersion(stream: stream, playlist) { entry, bytes in
            for (name, file) in newSegments {
                entry.variants[variant]?.segments[name] = file
                entry.variants[variant]?.recorded.add(bytes: file.size, duration: file.duration)
            }
            entry.variants[variant]?.gaps.formUnion(gaps)
            entry.variants[variant]?.playlist = bytes
            if let iFrameBytes { entry.variants[variant]?.iFramePlaylist = iFrameBytes }
            if !newSegments.isEmpty || !gaps.isEmpty { entry.variants[variant]?.lastPublished = now }
        }
        wakeWaiters(stream: stream, variant: variant, playlist: bytes, iFrames: iFrameBytes)
    }

    /// Call after a playlist with new EXT-X-GAP entries is on disk: the variant keeps pace
    /// with its siblings although its encoder has failed.
    public func publishGaps(stream: String, variant: String, segmentNames: [String], playlist: LiveMediaPlaylist) {
        let now = clock()
        let bytes = storeVersion(stream: stream, playlist) { entry, bytes in
            entry.variants[variant]?.gaps.formUnion(segmentNames)
            entry.variants[variant]?.playlist = bytes
            entry.variants[variant]?.lastPublished = now
        }
        wakeWaiters(stream: stream, variant: variant, playlist: bytes, iFrames: nil)
    }

    /// Notes that writing this variant's files fails (with the reason), or works again (nil).
    public func setWriteError(stream: String, variant: String, _ reason: String?) {
        streams.withLock { $0[stream]?.variants[variant]?.writeError = reason }
    }

    /// Notes the effort step a variant's encoder runs at (0: as configured).
    public func setEffort(stream: String, variant: String, step: Int, name: String) {
        streams.withLock { s in
            s[stream]?.variants[variant]?.effortStep = step
            s[stream]?.variants[variant]?.effortName = step > 0 ? name : nil
        }
    }

    /// Marks a variant failed (with the reason) or healthy again (nil).
    public func setFailure(stream: String, variant: String, _ reason: String?) {
        streams.withLock { $0[stream]?.variants[variant]?.failure = reason }
    }

    public func setMaster(stream: String, text: String) {
        let bytes = render(text)
        var limited: [String: RenderedPlaylist] = [:]
        if let parsed = try? MultivariantPlaylist.parse(text) {
            for uri in parsed.variants.map(\.uri) {
                let components = uri.split(separator: "/")
                guard components.count >= 2 else { continue }
                let variant = String(components[components.count - 2])
                if limited[variant] == nil, let one = parsed.limited(toVariant: variant) { limited[variant] = render(one.render()) }
            }
        }
        streams.withLock {
            $0[stream]?.master = bytes
            $0[stream]?.limitedMasters = limited
        }
    }

    public func updatePlaylists(stream: String, variant: String, playlist: LiveMediaPlaylist, iFrames: LiveMediaPlaylist?) {
        let iFrameBytes = iFrames.map { render($0) }
        let bytes = storeVersion(stream: stream, playlist) { entry, bytes in
            entry.variants[variant]?.playlist = bytes
            if let iFrameBytes { entry.variants[variant]?.iFramePlaylist = iFrameBytes }
        }
        wakeWaiters(stream: stream, variant: variant, playlist: bytes, iFrames: iFrameBytes)
    }

    /// Answers the requests held for what a new version lists; an ended playlist answers all
    /// of its held requests, since it will never list more.
    private func wakeWaiters(stream: String, variant: String, playlist: ServedMediaPlaylist, iFrames: ServedMediaPlaylist?) {
        let upTo = { (served: ServedMediaPlaylist) in served.complete ? Int.max : served.lastSequence }
        waiters.wake(.init(stream: stream, variant: variant), listed: upTo(playlist))
        if let iFrames { waiters.wake(.init(stream: stream, variant: variant, iFrames: true), listed: upTo(iFrames)) }
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

    /// Holds a blocking-reload request (`_HLS_msn`) until `variant`'s playlist (or I-frame
    /// playlist) lists `sequence`, the stream stops changing, or `seconds` pass. No thread waits.
    public func waitUntilListed(stream: String, variant: String, iFrames: Bool = false, sequence: Int, seconds: Double) async {
        await waiters.wait(for: .init(stream: stream, variant: variant, iFrames: iFrames), sequence: sequence, seconds: seconds) {
            self.streams.withLock { streams in
                guard let s = streams[stream], s.phase != .ended, s.phase != .removed, let v = s.variants[variant],
                      let listed = iFrames ? v.iFramePlaylist : v.playlist else { return true }
                return listed.complete || listed.lastSequence >= sequence
            }
        }
    }

    /// Requests held by blocking reload right now.
    public var heldRequests: Int { waiters.count }

    public func stream(named name: String) -> Stream? {
        streams.withLock { $0[name] }
    }

    public var streamNames: [String] { streams.withLock { Array($0.keys).sorted() } }
}
