import Foundation
import HLSOrigin
import HLSPlaylist
import Logging
import NIOPosix
import SegmentStore
import ServiceLifecycle
import StreamMirroring

/// One mirrored stream: reads the upstream's master (or, when the upstream is away at start,
/// the copy an earlier run stored), follows each chosen variant, and ticks every 100 ms so
/// the mirror turns its playlists into VOD within 1.5 target durations of the upstream going
/// silent, and back to EVENT when it returns.
struct MirrorService: Service {
    let upstream: URL
    let layout: StreamLayout
    let chosen: [String]?
    let registry: StreamRegistry
    let client: UpstreamClient
    let logger: Logger

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            guard let selection = try await masterSelection() else { return }
            let followers = try await makeFollowers(selection)
            await withTaskGroup(of: Void.self) { group in
                for follower in followers { group.addTask { await follower.run() } }
                group.addTask { await tick(followers) }
                group.addTask { await refreshMaster(variants: selection.variants) }
                await group.waitForAll()
            }
        }
    }

    /// The master to serve: the stored copy at once if there is one (so an offline start
    /// serves what is held), else the upstream's, retried until it answers.
    private func masterSelection() async throws -> MirrorMaster.Selection? {
        if let text = try? String(contentsOfFile: layout.masterPlaylistPath, encoding: .utf8), let stored = try? MultivariantPlaylist.parse(text),
           let selection = try? MirrorMaster.select(stored, variants: chosen) {
            return selection
        }
        var failures = 0
        while !Task.isCancelled {
            do {
                let answer = try await client.get(upstream.absoluteString, gzip: true, timeout: 10)
                guard answer.status == 200 else { throw VariantFollower.Failure(description: "\(upstream.absoluteString) answered \(answer.status): \(String(buffer: answer.body).prefix(200))") }
                let master = try MultivariantPlaylist.parse(String(buffer: answer.body))
                do {
                    return try MirrorMaster.select(master, variants: chosen)
                } catch {
                    // A master with no variant yet is a starting upstream; anything else is fatal.
                    guard master.variants.isEmpty else { throw SidelineStartupError(message: "cannot mirror \(upstream.absoluteString): \(error)") }
                    throw VariantFollower.Failure(description: "\(error)")
                }
            } catch let error as SidelineStartupError {
                throw error
            } catch is CancellationError {
                return nil
            } catch {
                failures += 1
                if failures == 1 { logger.warning("the upstream's master is not available yet; retrying", metadata: ["reason": "\(error)"]) }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
        return nil
    }

    private func makeFollowers(_ selection: MirrorMaster.Selection) async throws -> [VariantFollower] {
        let targetDuration = try await targetDuration(of: selection.variants[0])
        let title = selection.master.sessionData.first { $0.dataID == "com.sideline.title" }?.value ?? ""
        registry.register(stream: layout.stream, title: title, variants: selection.variants, targetDuration: targetDuration)
        try storeMaster(selection.master)
        let followers = try selection.variants.map { variant in
            try VariantFollower(stream: layout.stream, variant: variant, mediaURL: URL(string: "\(variant)/index.m3u8", relativeTo: upstream)!.absoluteURL,
                                iFramesURL: selection.iFrameVariants.contains(variant) ? URL(string: "\(variant)/iframes.m3u8", relativeTo: upstream)!.absoluteURL : nil,
                                layout: layout, targetDuration: targetDuration, registry: registry, client: client, logger: logger)
        }
        if followers.contains(where: \.hasContent) { registry.setPhase(stream: layout.stream, .live) }
        return followers
    }

    /// The target duration: from what is stored, or from the upstream's first media playlist.
    private func targetDuration(of variant: String) async throws -> Int {
        if let text = try? String(contentsOfFile: layout.mediaPlaylistPath(variant), encoding: .utf8), let stored = try? MediaPlaylist.parse(text) {
            return stored.targetDuration
        }
        let url = URL(string: "\(variant)/index.m3u8", relativeTo: upstream)!.absoluteURL.absoluteString
        while true {
            try Task.checkCancellation()
            if let answer = try? await client.get(url, gzip: true, timeout: 10), answer.status == 200, let playlist = try? MediaPlaylist.parse(String(buffer: answer.body)) {
                return playlist.targetDuration
            }
            try await Task.sleep(for: .milliseconds(500))
        }
    }

    private func storeMaster(_ master: MultivariantPlaylist) throws {
        let text = master.render()
        try FileManager.default.createDirectory(atPath: layout.streamDirectory, withIntermediateDirectories: true)
        try AtomicFile.write(text, to: layout.masterPlaylistPath)
        registry.setMaster(stream: layout.stream, text: text)
    }

    /// Every 100 ms: each variant's mode, and the stream's phase from them.
    private func tick(_ followers: [VariantFollower]) async {
        while !Task.isCancelled {
            let now = registry.clock()
            let modes = followers.map { $0.refreshMode(now: now) }
            let phase: StreamRegistry.Phase = modes.allSatisfy { $0 == .ended } ? .ended : modes.contains(.offline) ? .upstreamLost : .live
            if followers.contains(where: \.hasContent), registry.stream(named: layout.stream)?.phase != phase {
                registry.setPhase(stream: layout.stream, phase)
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The upstream's master can change (a variant's measured BANDWIDTH, session data): it is
    /// fetched again every 10 s and stored when it changed. The set of variants followed is
    /// fixed at start.
    private func refreshMaster(variants: [String]) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(10))
            guard let answer = try? await client.get(upstream.absoluteString, gzip: true, timeout: 5), answer.status == 200,
                  let master = try? MultivariantPlaylist.parse(String(buffer: answer.body)),
                  let selection = try? MirrorMaster.select(master, variants: chosen) else { continue }
            if selection.variants != variants {
                logger.info("the upstream's variants changed; restart the mirror to follow the new set", metadata: ["upstream": "\(selection.variants)", "followed": "\(variants)"])
                continue
            }
            if selection.master.render() != registry.stream(named: layout.stream)?.masterText {
                try? storeMaster(selection.master)
            }
        }
    }
}
