import Foundation
import HLSPlaylist
import SidelineCore

/// One mirrored stream: reads the upstream's master (or, when the upstream is away at start,
/// the copy an earlier run stored), follows each chosen variant, and ticks every 100 ms so the
/// mirror turns its playlists into VOD within 1.5 target durations of the upstream going
/// silent, and back to EVENT when it returns. The upstream's master is read again every 10 s
/// and stored when it changed.
public struct MirrorSession: Sendable {
    public let upstreamMaster: URL
    /// The variants to follow (nil: all of the upstream's).
    public let chosen: [String]?
    let upstream: any UpstreamFetching
    let destination: any MirrorDestination
    let clock: @Sendable () -> Double
    let sleep: @Sendable (Double) async throws -> Void
    let report: @Sendable (MirrorEvent) -> Void
    /// How often the modes are looked at, and how often the master is read again.
    var tickInterval = 0.1
    var masterRefreshInterval = 10.0

    public init(upstreamMaster: URL, chosen: [String]?, upstream: any UpstreamFetching, destination: any MirrorDestination,
                clock: @escaping @Sendable () -> Double, sleep: @escaping @Sendable (Double) async throws -> Void,
                report: @escaping @Sendable (MirrorEvent) -> Void) {
        self.upstreamMaster = upstreamMaster
        self.chosen = chosen
        self.upstream = upstream
        self.destination = destination
        self.clock = clock
        self.sleep = sleep
        self.report = report
    }

    /// Follows until cancelled. Throws `MirrorRefusal` when the upstream cannot be mirrored.
    public func run() async throws {
        guard let selection = try await masterSelection() else { return }
        let followers = try await makeFollowers(selection)
        await withTaskGroup(of: Void.self) { group in
            for follower in followers { group.addTask { await follower.run() } }
            group.addTask { await tick(followers) }
            group.addTask { await refreshMaster(variants: selection.variants) }
            await group.waitForAll()
        }
    }

    /// The master to serve: the stored copy at once if there is one (so an offline start
    /// serves what is held), else the upstream's, retried until it answers.
    func masterSelection() async throws -> MirrorMaster.Selection? {
        if let stored = destination.storedMaster(), let selection = try? MirrorMaster.select(stored, variants: chosen) {
            return selection
        }
        var backoff = Backoff.upstreamRetry
        while !Task.isCancelled {
            do {
                let answer = try await upstream.get(upstreamMaster, gzip: true, timeout: 10)
                guard answer.status == 200 else { throw MirrorFollower.Failure(description: "\(upstreamMaster.absoluteString) answered \(answer.status): \(answer.text.prefix(200))") }
                let master = try MultivariantPlaylist.parse(answer.text)
                do {
                    return try MirrorMaster.select(master, variants: chosen)
                } catch {
                    // A master with no variant yet is a starting upstream; anything else is fatal.
                    guard master.variants.isEmpty else { throw MirrorRefusal("cannot mirror \(upstreamMaster.absoluteString): \(error)") }
                    throw MirrorFollower.Failure(description: "\(error)")
                }
            } catch let refusal as MirrorRefusal {
                throw refusal
            } catch is CancellationError {
                return nil
            } catch {
                if backoff.failures == 0 { report(.masterUnavailable(reason: "\(error)")) }
                do { try await sleep(backoff.failed(at: clock())) } catch { return nil }
            }
        }
        return nil
    }

    /// Throws when the upstream's variant name does not make a URL (it named it; it is not trusted).
    private func mediaURL(_ variant: String, _ playlist: String) throws -> URL {
        guard let url = URL(string: "\(variant)/\(playlist)", relativeTo: upstreamMaster)?.absoluteURL else {
            throw MirrorRefusal("the upstream's variant '\(variant)' does not make a URL beside \(upstreamMaster.absoluteString)")
        }
        return url
    }

    private func makeFollowers(_ selection: MirrorMaster.Selection) async throws -> [MirrorFollower] {
        let targetDuration = try await targetDuration(of: selection.variants[0])
        let title = selection.master.sessionData.first { $0.dataID == "com.sideline.title" }?.value ?? ""
        destination.register(title: title, variants: selection.variants, targetDuration: targetDuration)
        try destination.storeMaster(selection.master)
        let followers = try selection.variants.map { variant in
            try MirrorFollower(variant: variant, mediaURL: try mediaURL(variant, "index.m3u8"),
                               iFramesURL: selection.iFrameVariants.contains(variant) ? try mediaURL(variant, "iframes.m3u8") : nil,
                               targetDuration: targetDuration, upstream: upstream, destination: destination, clock: clock, sleep: sleep, report: report)
        }
        if followers.contains(where: \.hasContent) { destination.setMode(.following) }
        return followers
    }

    /// The target duration: from what is stored, or from the upstream's first media playlist.
    private func targetDuration(of variant: String) async throws -> Int {
        if let stored = try? destination.stored(variant: variant).listed { return stored.targetDuration }
        let url = try mediaURL(variant, "index.m3u8")
        while true {
            try Task.checkCancellation()
            if let answer = try? await upstream.get(url, gzip: true, timeout: 10), answer.status == 200,
               let playlist = try? MediaPlaylist.parse(answer.text) {
                return playlist.targetDuration
            }
            try await sleep(0.5)
        }
    }

    /// Every tick: each variant's mode, and the stream's from them.
    private func tick(_ followers: [MirrorFollower]) async {
        var shown: MirrorFreshness.Mode?
        while !Task.isCancelled {
            let mode = MirrorFreshness.Mode.ofStream(followers.map { $0.refreshMode(now: clock()) })
            if followers.contains(where: \.hasContent), mode != shown {
                destination.setMode(mode)
                shown = mode
            }
            do { try await sleep(tickInterval) } catch { return }
        }
    }

    /// The upstream's master can change (a variant's measured BANDWIDTH, session data): it is
    /// read again and stored when it changed. The set of variants followed is fixed at start.
    private func refreshMaster(variants: [String]) async {
        while !Task.isCancelled {
            do { try await sleep(masterRefreshInterval) } catch { return }
            guard let answer = try? await upstream.get(upstreamMaster, gzip: true, timeout: 5), answer.status == 200,
                  let master = try? MultivariantPlaylist.parse(answer.text),
                  let selection = try? MirrorMaster.select(master, variants: chosen) else { continue }
            if selection.variants != variants {
                report(.variantsChanged(upstream: selection.variants, followed: variants))
                continue
            }
            if selection.master.render() != destination.servedMaster {
                try? destination.storeMaster(selection.master)
            }
        }
    }
}

extension MirrorFreshness.Mode {
    /// A mirrored stream's state from its variants': ended when all have ended, offline when
    /// any is (its upstream is away), following otherwise.
    public static func ofStream(_ modes: [MirrorFreshness.Mode]) -> MirrorFreshness.Mode {
        if modes.allSatisfy({ $0 == .ended }) { return .ended }
        return modes.contains(.offline) ? .offline : .following
    }
}
