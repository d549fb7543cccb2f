import Foundation
import HLSOrigin
import HLSPlaylist
import Logging
import MPEGTS
import NIOPosix
import SegmentStore
import StreamMirroring
import Synchronization

/// Follows one variant of an upstream Sideline: reloads its media playlist (blocking reload
/// when the upstream offers it, so a new segment is seen the moment it is listed), downloads
/// every segment it does not hold, checks it, stores it in the same layout the upstream uses
/// (segment first, then the playlist that lists it, each written atomically) and publishes the
/// held prefix to the local origin, as EVENT, VOD or ended as `MirrorFreshness` decides.
///
/// What it holds is what is on disk: a restart lists every segment file found there and
/// downloads only the rest, so nothing is fetched twice.
final class VariantFollower: Sendable {
    let variant: String
    private let stream: String
    private let mediaURL: URL
    private let iFramesURL: URL?
    private let layout: StreamLayout
    private let registry: StreamRegistry
    private let client: UpstreamClient
    private let logger: Logger
    private let freshness = MirrorFreshness()
    private let since: Double
    private let state: Mutex<State>

    private struct State {
        var targetDuration: Int
        /// The upstream's playlists as last fetched.
        var upstream: MediaPlaylist?
        var upstreamIFrames: MediaPlaylist?
        /// Segment files on disk, by name.
        var held: [String: StreamRegistry.SegmentFile]
        /// Listed upstream but answered 404/410 there: listed here as GAP.
        var lost: Set<String> = []
        /// What is listed (the EVENT form, as on disk).
        var listed: MediaPlaylist?
        var iFramesListed: MediaPlaylist?
        var lastAdvance: Double?
        var lastContact: Double?
        /// The mode of the version the origin serves.
        var mode: MirrorFreshness.Mode = .following
        /// Set when the upstream's recording is not the one the mirror holds: following stops.
        var conflict: String?
        /// The upstream advertised CAN-BLOCK-RELOAD=YES.
        var canBlockReload = false
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Restores what an earlier run of the mirror stored for this variant and publishes it.
    init(stream: String, variant: String, mediaURL: URL, iFramesURL: URL?, layout: StreamLayout, targetDuration: Int,
         registry: StreamRegistry, client: UpstreamClient, logger: Logger) throws {
        self.stream = stream
        self.variant = variant
        self.mediaURL = mediaURL
        self.iFramesURL = iFramesURL
        self.layout = layout
        self.registry = registry
        self.client = client
        var logger = logger
        logger[metadataKey: "variant"] = "\(variant)"
        self.logger = logger
        since = registry.clock()
        let directory = layout.variantDirectory(variant)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var listed: MediaPlaylist?
        if let text = try? String(contentsOfFile: layout.mediaPlaylistPath(variant), encoding: .utf8) {
            listed = try MediaPlaylist.parse(text)
        }
        let durations = Dictionary((listed?.segments ?? []).map { ($0.uri, $0.duration) }, uniquingKeysWith: { first, _ in first })
        var held: [String: StreamRegistry.SegmentFile] = [:]
        for name in names where name.hasSuffix(".ts") && !name.hasPrefix(AtomicFile.temporaryPrefix) {
            // A temporary file is a download cut short; a named one was checked and renamed whole.
            let path = layout.segmentPath(variant, name)
            let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
            if size > 0 { held[name] = .init(path: path, size: size, duration: durations[name] ?? 0) }
        }
        for name in names where name.hasPrefix(AtomicFile.temporaryPrefix) { unlink("\(directory)/\(name)") }
        let iFrames = (try? String(contentsOfFile: layout.iFramePlaylistPath(variant), encoding: .utf8)).flatMap { try? MediaPlaylist.parse($0) }
        state = Mutex(State(targetDuration: listed?.targetDuration ?? targetDuration, held: held, listed: listed, iFramesListed: iFrames))
        if let listed {
            let gaps = Set(listed.segments.filter(\.gap).map(\.uri))
            let files = held.filter { name, _ in listed.segments.contains { $0.uri == name } }
            registry.restore(stream: stream, variant: variant, playlist: LiveMediaPlaylist(listed), iFrames: iFrames.map { LiveMediaPlaylist($0) }, segments: files, gaps: gaps)
            logger.info("restored what the mirror holds", metadata: ["listed": "\(listed.segments.count)", "files": "\(held.count)"])
        }
    }

    var mode: MirrorFreshness.Mode { state.withLock { $0.mode } }
    var hasContent: Bool { state.withLock { $0.listed?.segments.isEmpty == false } }
    var targetDuration: Int { state.withLock { $0.targetDuration } }

    /// Follows until the upstream's stream has ended and all of it is held, or the task is
    /// cancelled. Failures are retried with a short backoff: the point is to notice the
    /// upstream's return within a fraction of a segment.
    func run() async {
        var failures = 0
        while !Task.isCancelled {
            let (done, conflict) = state.withLock { ($0.mode == .ended, $0.conflict) }
            if done || conflict != nil { return }
            do {
                let advanced = try await reload()
                try await fetchMissing()
                if failures > 0 { logger.notice("upstream reachable again", metadata: ["after-failures": "\(failures)"]) }
                failures = 0
                // Without blocking reload, poll at half a target duration while nothing changes.
                if !advanced && !state.withLock({ $0.canBlockReload }) {
                    try await Task.sleep(for: .milliseconds(targetDuration * 500))
                }
            } catch is CancellationError {
                return
            } catch {
                failures += 1
                // The first failure of an outage is a warning; the rest would flood the log.
                if failures == 1 { logger.warning("upstream failed; retrying while serving what the mirror holds", metadata: ["reason": "\(error)"]) }
                else { logger.debug("upstream still failing", metadata: ["reason": "\(error)", "failures": "\(failures)"]) }
                try? await Task.sleep(for: .milliseconds(min(1000, 100 << min(failures, 4))))
            }
        }
    }

    /// Fetches the upstream's media playlist (held until the next segment when it offers
    /// blocking reload). Returns whether it lists more than before.
    private func reload() async throws -> Bool {
        let (previous, block, target) = state.withLock { ($0.upstream, $0.canBlockReload, $0.targetDuration) }
        var url = mediaURL
        if block, let previous, !previous.endList {
            url = URL(string: mediaURL.absoluteString + "?_HLS_msn=\(previous.mediaSequence + previous.segments.count)")!
        }
        let answer = try await client.get(url.absoluteString, gzip: true, timeout: Double(3 * target + 2))
        guard answer.status == 200 else {
            throw Failure(description: "\(url.absoluteString) answered \(answer.status): \(String(buffer: answer.body).prefix(200))")
        }
        let text = String(buffer: answer.body)
        let upstream: MediaPlaylist
        do {
            upstream = try MediaPlaylist.parse(text)
        } catch {
            throw Failure(description: "\(url.absoluteString) is not a media playlist: \(error)")
        }
        let now = registry.clock()
        let advanced = upstream.segments.count > (previous?.segments.count ?? -1)
        var iFrames: MediaPlaylist?
        if advanced, let iFramesURL {
            // Best effort: the media playlist is what matters; I-frames follow at the next advance.
            if let answer = try? await client.get(iFramesURL.absoluteString, gzip: true, timeout: Double(target + 2)), answer.status == 200 {
                iFrames = try? MediaPlaylist.parse(String(buffer: answer.body))
            }
        }
        let conflict: String? = state.withLock { state in
            if let listed = state.listed, let conflict = MirrorListing.conflict(mirrored: listed, upstream: upstream) { return conflict }
            if let bad = upstream.segments.first(where: { !Self.isPlainFileName($0.uri) }) {
                return "the upstream lists segment '\(bad.uri)', which is not a file name in the variant's directory (a Sideline upstream lists 000042.ts)"
            }
            state.upstream = upstream
            if let iFrames { state.upstreamIFrames = iFrames }
            state.targetDuration = upstream.targetDuration
            state.canBlockReload = text.contains("CAN-BLOCK-RELOAD=YES")
            state.lastContact = now
            if advanced { state.lastAdvance = now }
            return nil
        }
        if let conflict {
            state.withLock { $0.conflict = conflict }
            logger.error("the upstream's recording is not the one this mirror holds; serving what it holds as VOD and no longer following. To mirror the new recording, move \(layout.streamDirectory) aside and start the mirror again",
                         metadata: ["reason": "\(conflict)"])
            _ = refreshMode(now: now)
            return false
        }
        // The listing may change without a download (new GAP entries, the end).
        try await publish(newSegments: [:])
        return advanced
    }

    /// Downloads, checks and stores every listed segment the mirror does not hold, in order;
    /// publishes at most twice a second while catching up, and after the last.
    private func fetchMissing() async throws {
        var pending: [String: StreamRegistry.SegmentFile] = [:]
        var lastPublish = registry.clock()
        defer { if !pending.isEmpty { logger.debug("unpublished downloads kept on disk; listed at the next reload", metadata: ["count": "\(pending.count)"]) } }
        while let entry = state.withLock({ state in state.upstream.map { MirrorListing(upstream: $0, held: Set(state.held.keys), lost: state.lost).downloads.first } ?? nil }) {
            try Task.checkCancellation()
            let url = URL(string: entry.uri, relativeTo: mediaURL)!.absoluteURL.absoluteString
            let target = targetDuration
            let answer = try await client.get(url, gzip: false, timeout: Double(max(10, 4 * target)))
            switch answer.status {
            case 200:
                let bytes = Array(answer.body.readableBytesView)
                if let failure = SegmentCheck.verify(bytes, announced: answer.announcedLength) {
                    throw Failure(description: "\(url) failed its check, not stored: \(failure)")
                }
                let path = layout.segmentPath(variant, entry.uri)
                try await NIOThreadPool.singleton.runIfActive { try AtomicFile.write(bytes, to: path) }
                let file = StreamRegistry.SegmentFile(path: path, size: bytes.count, duration: entry.duration)
                state.withLock { $0.held[entry.uri] = file }
                pending[entry.uri] = file
            case 404, 410:
                state.withLock { _ = $0.lost.insert(entry.uri) }
                logger.warning("the upstream no longer has a segment it listed; it is listed here as EXT-X-GAP", metadata: ["segment": "\(url)", "status": "\(answer.status)"])
            default:
                throw Failure(description: "\(url) answered \(answer.status)")
            }
            if registry.clock() - lastPublish >= 0.5 {
                try await publish(newSegments: pending)
                pending = [:]
                lastPublish = registry.clock()
            }
        }
        try await publish(newSegments: pending)
        pending = [:]
    }

    /// Writes the listing to disk when it changed (EVENT form, like the upstream's own file),
    /// then hands the origin the form the current mode calls for.
    private func publish(newSegments: [String: StreamRegistry.SegmentFile]) async throws {
        let update: (MediaPlaylist, MediaPlaylist?, Bool)? = state.withLock { state in
            guard let upstream = state.upstream else { return nil }
            let listing = MirrorListing(upstream: upstream, held: Set(state.held.keys), lost: state.lost)
            let changed = listing.playlist != state.listed
            state.listed = listing.playlist
            if let iFrames = state.upstreamIFrames { state.iFramesListed = listing.iFrames(from: iFrames) }
            return (listing.playlist, state.iFramesListed, changed)
        }
        guard let (listed, iFrames, changed) = update else { return }
        if changed {
            let mediaPath = layout.mediaPlaylistPath(variant)
            let iFramePath = layout.iFramePlaylistPath(variant)
            try await NIOThreadPool.singleton.runIfActive {
                try AtomicFile.write(listed.render(), to: mediaPath)
                if let iFrames { try AtomicFile.write(iFrames.render(), to: iFramePath) }
            }
        }
        let mode = decideMode(now: registry.clock()).mode
        let gaps = Set(listed.segments.filter(\.gap).map(\.uri))
        registry.publishMirrored(stream: stream, variant: variant, newSegments: newSegments, gaps: gaps,
                                 playlist: LiveMediaPlaylist(MirrorFreshness.rendition(of: listed, in: mode)),
                                 iFrames: iFrames.map { LiveMediaPlaylist(MirrorFreshness.rendition(of: $0, in: mode)) })
    }

    /// Decides the mode now and records it as the one served; a change is logged.
    private func decideMode(now: Double) -> (mode: MirrorFreshness.Mode, changed: Bool) {
        let (before, after, listed) = state.withLock { state in
            let facts = MirrorFreshness.Facts(upstreamEnded: state.upstream?.endList ?? false,
                                              caughtUp: state.upstream.map { MirrorListing(upstream: $0, held: Set(state.held.keys), lost: state.lost).caughtUp } ?? false,
                                              lastAdvance: state.lastAdvance, lastContact: state.lastContact, since: since, targetDuration: state.targetDuration, now: now)
            let before = state.mode
            state.mode = state.conflict != nil ? .offline : freshness.mode(facts)
            return (before, state.mode, state.listed?.segments.count ?? 0)
        }
        if after != before {
            let what = switch after {
            case .offline: "upstream unreachable or stale: serving what the mirror holds as VOD"
            case .ended: "the upstream ended the stream and the mirror holds all of it"
            case .following: "following the upstream (EVENT)"
            }
            logger.notice("\(what)", metadata: ["listed": "\(listed)"])
        }
        return (after, after != before)
    }

    /// Called by the stream's ticker: when the mode changes (the upstream went silent, or came
    /// back), the same listing is published in the new form. Returns the mode.
    @discardableResult
    func refreshMode(now: Double) -> MirrorFreshness.Mode {
        let (mode, changed) = decideMode(now: now)
        guard changed, let (listed, iFrames) = state.withLock({ state in state.listed.map { ($0, state.iFramesListed) } }) else { return mode }
        registry.updatePlaylists(stream: stream, variant: variant, playlist: LiveMediaPlaylist(MirrorFreshness.rendition(of: listed, in: mode)),
                                 iFrames: iFrames.map { LiveMediaPlaylist(MirrorFreshness.rendition(of: $0, in: mode)) })
        return mode
    }

    /// A segment URI the mirror can store under the variant's directory as it is.
    static func isPlainFileName(_ uri: String) -> Bool {
        !uri.isEmpty && !uri.contains("/") && !uri.contains("?") && !uri.hasPrefix(".") && !uri.contains(":")
    }
}
