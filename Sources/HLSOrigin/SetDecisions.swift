import HLSPlaylist
import OriginPolicy
import OriginRegistry
import OriginState

extension OriginDecision {
    /// `/live/<set>/master.m3u8`: the set's master, answered as its default angle's master
    /// would be (the same status while that one has none: starting, removed), with the same
    /// cache policy.
    static func setMaster(_ set: StreamRegistry.AngleSet, variantLimit: String?, registry: StreamRegistry,
                          server: StatusPolicy.ServerCondition, policy: StatusPolicy) -> Described {
        var described = decideTimed(.success(.master(stream: set.defaultStream)), variantLimit: variantLimit, registry: registry, server: server, policy: policy)
        guard case let .playlist(_, cache) = described.decision else { return described }
        guard let master = registry.setMaster(set, variantLimit: variantLimit) else {
            described.decision = .refuse(variantLimit.map { .noSuchVariant($0, of: set.name) } ?? StatusPolicy.missingContent)
            return described
        }
        described.decision = .playlist(master, cache)
        return described
    }
}

extension VODDecision {
    /// `/vod/<set>/master.m3u8`: the set's master with every rendition's URI under `/vod/`
    /// (they are relative: `../<stream>/<rung>/index.m3u8`) and carrying the window, as a
    /// stream's VOD master does; cached like its default angle's.
    static func setMaster(_ set: StreamRegistry.AngleSet, window: TimeWindow, variantLimit: String?, registry: StreamRegistry, renditions: VODRenditions) -> OriginDecision {
        let stream: StreamRegistry.Stream
        do { stream = try registry.existing(set.defaultStream) } catch { return .refuse(error) }
        let cache: CachePolicy = stream.phase == .ended ? .endedPlaylist : .livePlaylist(maxAge: max(1, stream.targetDuration / 2))
        let windowQuery = window.query
        let value = registry.setMasterValue(set, variantLimit: variantLimit)
        let tag = value.map { $0.tag + "-vod" + (windowQuery.isEmpty ? "" : "-" + windowQuery) }
        // Made once per version and window: a request for one made already renders nothing.
        if let tag, let made = renditions.made(tag: tag) { return .playlist(made, cache) }
        guard let value, let tag, let text = value.master.render(variantLimit: variantLimit, query: windowQuery) else {
            if let variantLimit { return .refuse(.noSuchVariant(variantLimit, of: set.name)) }
            return .refuse(Refusal(.nothingRecorded, "set '\(set.name)': its default angle '\(set.defaultStream)' has no master playlist yet"))
        }
        return .playlist(renditions.rendered(tag: tag) { text }, cache)
    }
}
