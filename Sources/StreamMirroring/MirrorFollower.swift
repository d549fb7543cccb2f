import Foundation
import HLSPlaylist
import SidelineCore
import Synchronization

/// Follows one variant of an upstream Sideline: reloads its media playlist (blocking reload
/// when the upstream offers it, so a new segment is seen the moment it is listed), downloads
/// every segment it does not hold, checks it, has it stored (segment first, then the playlist
/// that lists it) and shows the held prefix to players, as EVENT, VOD or ended as
/// `MirrorFreshness` decides.
///
/// What it holds is what was stored: a restart lists every whole segment file found and
/// downloads only the rest, so nothing is fetched twice. The network, the disk, the origin,
/// time and sleeping are all injected, so every decision is tested in milliseconds.
public final class MirrorFollower: Sendable {
    public let variant: String
    private let mediaURL: URL
    private let iFramesURL: URL?
    private let upstream: any UpstreamFetching
    private let destination: any MirrorDestination
    private let clock: @Sendable () -> Double
    private let sleep: @Sendable (Double) async throws -> Void
    private let report: @Sendable (MirrorEvent) -> Void
    private let freshness = MirrorFreshness()
    private let since: Double
    private let state: Mutex<State>

    private struct State {
        var targetDuration: Int
        /// The upstream's playlists as last fetched.
        var upstream: MediaPlaylist?
        var upstreamIFrames: MediaPlaylist?
        /// Segments held, by name.
        var held: [String: HeldSegment]
        /// Listed upstream but answered 404/410 there: listed here as GAP.
        var lost: Set<String> = []
        /// What is listed (the EVENT form, as stored).
        var listed: MediaPlaylist?
        var iFramesListed: MediaPlaylist?
        var lastAdvance: Double?
        var lastContact: Double?
        /// The mode of the version the origin serves.
        var mode: MirrorFreshness.Mode = .following
        /// Set when the upstream's recording is not the one the mirror holds: following stops.
        var conflict: String?
        /// The upstream's last EXT-X-SERVER-CONTROL offered CAN-BLOCK-RELOAD=YES.
        var canBlockReload = false

        var listing: MirrorListing? { upstream.map { MirrorListing(upstream: $0, held: Set(held.keys), lost: lost) } }
    }

    /// Restores what an earlier run stored for this variant and shows it.
    /// `sleep`: waits the given seconds (or throws `CancellationError`); tests move a clock instead.
    public init(variant: String, mediaURL: URL, iFramesURL: URL?, targetDuration: Int, upstream: any UpstreamFetching, destination: any MirrorDestination,
                clock: @escaping @Sendable () -> Double, sleep: @escaping @Sendable (Double) async throws -> Void,
                report: @escaping @Sendable (MirrorEvent) -> Void) throws {
        self.variant = variant
        self.mediaURL = mediaURL
        self.iFramesURL = iFramesURL
        self.upstream = upstream
        self.destination = destination
        self.clock = clock
        self.sleep = sleep
        self.report = report
        since = clock()
        let stored = try destination.stored(variant: variant)
        let durations = Dictionary((stored.listed?.segments ?? []).map { ($0.uri, $0.duration) }, uniquingKeysWith: { first, _ in first })
        var held: [String: HeldSegment] = [:]
        for (name, size) in stored.files where size > 0 { held[name] = HeldSegment(size: size, duration: durations[name] ?? 0) }
        state = Mutex(State(targetDuration: stored.listed?.targetDuration ?? targetDuration, held: held, listed: stored.listed, iFramesListed: stored.iFrames))
        if let listed = stored.listed {
            let names = Set(listed.segments.map(\.uri) + listed.replacements.values.map(\.uri))
            destination.show(MirrorView(kind: .restored, playlist: listed, iFrames: stored.iFrames, newSegments: held.filter { names.contains($0.key) },
                                        gaps: Set(listed.segments.filter(\.gap).map(\.uri))), variant: variant)
            report(.restored(variant: variant, listed: listed.segments.count, files: held.count))
        }
    }

    public var mode: MirrorFreshness.Mode { state.withLock { $0.mode } }
    public var hasContent: Bool { state.withLock { $0.listed?.segments.isEmpty == false } }
    public var targetDuration: Int { state.withLock { $0.targetDuration } }
    /// Names of the segments held.
    public var held: Set<String> { state.withLock { Set($0.held.keys) } }

    /// Follows until the upstream's stream has ended and all of it is held, following stops
    /// on a conflict, or the task is cancelled. Failed rounds are retried through
    /// `Backoff.upstreamRetry`.
    public func run() async {
        var backoff = Backoff.upstreamRetry
        while !Task.isCancelled {
            let (done, conflict) = state.withLock { ($0.mode == .ended, $0.conflict) }
            if done || conflict != nil { return }
            do {
                let advanced = try await reload()
                try await fetchMissing()
                if backoff.failures > 0 { report(.upstreamBack(variant: variant, afterFailures: backoff.failures)) }
                backoff.succeeded()
                // Without blocking reload, poll at half a target duration while nothing changes.
                if !advanced && !state.withLock({ $0.canBlockReload }) {
                    try await sleep(UpstreamRequests.pollInterval(targetDuration: targetDuration))
                }
            } catch is CancellationError {
                return
            } catch {
                let wait = backoff.failed(at: clock())
                report(.upstreamFailed(variant: variant, reason: "\(error)", failures: backoff.failures))
                do { try await sleep(wait) } catch { return }
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Fetches the upstream's media playlist (held until the next segment when it offers
    /// blocking reload) and shows what changed. Returns whether it lists more than before.
    @discardableResult
    public func reload() async throws -> Bool {
        let (previous, block, target) = state.withLock { ($0.upstream, $0.canBlockReload, $0.targetDuration) }
        let url = UpstreamRequests.reload(mediaURL, after: previous, canBlockReload: block)
        let answer = try await upstream.get(url, gzip: true, timeout: UpstreamRequests.reloadTimeout(targetDuration: target))
        guard answer.status == 200 else {
            throw Failure(description: "\(url.absoluteString) answered \(answer.status): \(answer.text.prefix(200))")
        }
        let upstreamPlaylist: MediaPlaylist
        let control: ServerControl?
        do {
            (upstreamPlaylist, control) = try MediaPlaylist.parseWithServerControl(answer.text)
        } catch {
            throw Failure(description: "\(url.absoluteString) is not a media playlist: \(error)")
        }
        let now = clock()
        let advanced = upstreamPlaylist.segments.count > (previous?.segments.count ?? -1)
        var iFrames: MediaPlaylist?
        if advanced, let iFramesURL {
            // Best effort: the media playlist is what matters; I-frames follow at the next advance.
            if let answer = try? await upstream.get(iFramesURL, gzip: true, timeout: UpstreamRequests.iFramesTimeout(targetDuration: target)), answer.status == 200 {
                iFrames = try? MediaPlaylist.parse(answer.text)
            }
        }
        let conflict: String? = state.withLock { state in
            if let listed = state.listed, let conflict = MirrorListing.conflict(mirrored: listed, upstream: upstreamPlaylist) { return conflict }
            // Every name the mirror would fetch and store: the entries and the late segments
            // that replace some of them (X-URI), which become files beside them just the same.
            let names = upstreamPlaylist.segments.map(\.uri) + upstreamPlaylist.replacements.values.map(\.uri)
            if let bad = names.first(where: { !UpstreamRequests.isPlainFileName($0) }) {
                return "the upstream lists segment '\(bad)', which is not a file name in the variant's directory (a Sideline upstream lists 000042.ts)"
            }
            state.upstream = upstreamPlaylist
            if let iFrames { state.upstreamIFrames = iFrames }
            state.targetDuration = upstreamPlaylist.targetDuration
            state.canBlockReload = control?.canBlockReload ?? false
            state.lastContact = now
            if advanced { state.lastAdvance = now }
            return nil
        }
        if let conflict {
            state.withLock { $0.conflict = conflict }
            report(.conflict(variant: variant, reason: conflict))
            refreshMode(now: now)
            return false
        }
        // The listing may change without a download (new GAP entries, the end).
        try await show(newSegments: [:])
        return advanced
    }

    /// Downloads, checks and stores every listed segment the mirror does not hold, in order;
    /// shows them at most twice a second while catching up, and after the last.
    public func fetchMissing() async throws {
        var pending: [String: HeldSegment] = [:]
        var lastShown = clock()
        defer { if !pending.isEmpty { report(.unpublishedKept(variant: variant, count: pending.count)) } }
        while let entry = state.withLock({ $0.listing?.downloads.first }) {
            try Task.checkCancellation()
            guard let url = URL(string: entry.uri, relativeTo: mediaURL)?.absoluteURL else {
                throw Failure(description: "the upstream lists segment '\(entry.uri)', which does not make a URL beside \(mediaURL.absoluteString)")
            }
            let answer = try await upstream.get(url, gzip: false, timeout: UpstreamRequests.downloadTimeout(targetDuration: targetDuration))
            switch UpstreamRequests.segmentOutcome(answer, url: url) {
            case .store:
                try await destination.storeSegment(answer.body, named: entry.uri, variant: variant)
                let segment = HeldSegment(size: answer.body.count, duration: entry.duration)
                state.withLock { $0.held[entry.uri] = segment }
                pending[entry.uri] = segment
            case .lost:
                state.withLock { _ = $0.lost.insert(entry.uri) }
                report(.segmentLost(variant: variant, url: url.absoluteString, status: answer.status))
            case let .failed(reason):
                throw Failure(description: reason)
            }
            if clock() - lastShown >= 0.5 {
                try await show(newSegments: pending)
                pending = [:]
                lastShown = clock()
            }
        }
        try await show(newSegments: pending)
        pending = [:]
    }

    /// Stores the listing when it changed (EVENT form, like the upstream's own file), then
    /// has the origin serve the form the current mode calls for.
    private func show(newSegments: [String: HeldSegment]) async throws {
        let update: (MediaPlaylist, MediaPlaylist?, Bool)? = state.withLock { state in
            guard let listing = state.listing else { return nil }
            let changed = listing.playlist != state.listed
            state.listed = listing.playlist
            if let iFrames = state.upstreamIFrames { state.iFramesListed = listing.iFrames(from: iFrames) }
            return (listing.playlist, state.iFramesListed, changed)
        }
        guard let (listed, iFrames, changed) = update else { return }
        if changed { try await destination.storePlaylists(listed, iFrames: iFrames, variant: variant) }
        let mode = decideMode(now: clock()).mode
        destination.show(MirrorView(kind: .grown, playlist: MirrorFreshness.rendition(of: listed, in: mode), iFrames: iFrames.map { MirrorFreshness.rendition(of: $0, in: mode) },
                                    newSegments: newSegments, gaps: Set(listed.segments.filter(\.gap).map(\.uri))), variant: variant)
    }

    /// Decides the mode at `now` and records it as the one served.
    private func decideMode(now: Double) -> (mode: MirrorFreshness.Mode, changed: Bool) {
        let (before, after, listed) = state.withLock { state in
            let facts = MirrorFreshness.Facts(upstreamEnded: state.upstream?.endList ?? false, caughtUp: state.listing?.caughtUp ?? false,
                                              lastAdvance: state.lastAdvance, lastContact: state.lastContact, since: since, targetDuration: state.targetDuration, now: now)
            let before = state.mode
            state.mode = state.conflict != nil ? .offline : freshness.mode(facts)
            return (before, state.mode, state.listed?.segments.count ?? 0)
        }
        if after != before { report(.modeChanged(variant: variant, mode: after, listed: listed)) }
        return (after, after != before)
    }

    /// Called by the stream's ticker: when the mode changes (the upstream went silent, or came
    /// back), the same listing is shown in the new form. Returns the mode.
    @discardableResult
    public func refreshMode(now: Double) -> MirrorFreshness.Mode {
        let (mode, changed) = decideMode(now: now)
        guard changed, let (listed, iFrames) = state.withLock({ state in state.listed.map { ($0, state.iFramesListed) } }) else { return mode }
        destination.show(MirrorView(kind: .reshaped, playlist: MirrorFreshness.rendition(of: listed, in: mode), iFrames: iFrames.map { MirrorFreshness.rendition(of: $0, in: mode) },
                                    newSegments: [:], gaps: []), variant: variant)
        return mode
    }
}
