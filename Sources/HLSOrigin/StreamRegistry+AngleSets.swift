import HLSPlaylist
import NIOCore
import OriginPolicy

extension StreamRegistry {
    /// An angle set as the config gives it (`angle_sets`): streams of one match, served
    /// together under the set's name, which no stream has.
    public struct AngleSet: Sendable, Equatable {
        public var name: String
        public var title: String
        /// The angles' streams, default angle first.
        public var streams: [String]
        /// Seconds of every segment of every angle (the config's `segment_duration`).
        public var segmentDuration: Double

        public init(name: String, title: String = "", streams: [String], segmentDuration: Double) {
            self.name = name
            self.title = title
            self.streams = streams
            self.segmentDuration = segmentDuration
        }

        /// The angle every player that does not switch angles plays.
        public var defaultStream: String { streams.first ?? "" }
    }

    public func angleSet(named name: String) -> AngleSet? {
        angleSets.first { $0.name == name }
    }

    /// The one set lookup of every set route: the set, or 404.
    public func existingSet(_ name: String) throws(Refusal) -> AngleSet {
        guard let set = angleSet(named: name) else { throw Refusal.noSuchSet(name) }
        return set
    }

    /// The set's master as served (`SetMaster`), rendered once per version of its angles'
    /// masters and kept (`setMasters`); nil when the default angle has no master (or no rung
    /// `variantLimit` names). Angles without a master yet (a pushed angle before its encoder's
    /// first master) or removed are left out until they have one.
    func setMaster(_ set: AngleSet, variantLimit: String?) -> RenderedPlaylist? {
        guard let (master, tag) = setMasterValue(set, variantLimit: variantLimit) else { return nil }
        if let made = setMasters.made(tag: tag) { return made }
        guard let text = master.render(variantLimit: variantLimit) else { return nil }
        return setMasters.rendered(tag: tag) { text }
    }

    /// The set's master as a value, made from its angles' masters as published, and the tag
    /// that says which versions of them it was made from; nil when the default angle has none.
    func setMasterValue(_ set: AngleSet, variantLimit: String?) -> (master: SetMaster, tag: String)? {
        let angles = set.streams.compactMap { name -> (name: String, stream: Stream, master: RenderedPlaylist, playlist: MultivariantPlaylist)? in
            guard let stream = stream(named: name), stream.phase != .removed, let master = stream.master, let playlist = stream.masterPlaylist else { return nil }
            return (name, stream, master, playlist)
        }
        guard angles.first?.name == set.defaultStream else { return nil }
        let tag = "set-" + set.name + (variantLimit.map { "-" + $0 } ?? "") + angles.map { "-" + $0.master.etag.dropFirst().dropLast() }.joined()
        return (SetMaster(angles: angles.map { SetMaster.Angle(stream: $0.name, title: $0.stream.title, master: $0.playlist) }, title: set.title), tag)
    }
}

extension Refusal {
    /// A name no angle set has: 404, listing the sets there are.
    /// Names no other set: the sets there are is what `/api/sets` tells each caller, a
    /// private one only to a caller its token covers (issue 33).
    public static func noSuchSet(_ name: String) -> Refusal {
        Refusal(.noSuchResource, "no angle set named '\(name)': /api/sets lists the sets you may watch (angle_sets in the config)")
    }
}

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
        guard let (master, made) = registry.setMasterValue(set, variantLimit: variantLimit), master.render(variantLimit: variantLimit) != nil else {
            if let variantLimit { return .refuse(.noSuchVariant(variantLimit, of: set.name)) }
            return .refuse(Refusal(.nothingRecorded, "set '\(set.name)': its default angle '\(set.defaultStream)' has no master playlist yet"))
        }
        let cache: CachePolicy = stream.phase == .ended ? .endedPlaylist : .livePlaylist(maxAge: max(1, stream.targetDuration / 2))
        let windowQuery = window.query
        let tag = made + "-vod" + (windowQuery.isEmpty ? "" : "-" + windowQuery)
        return .playlist(renditions.rendered(tag: tag) { master.render(variantLimit: variantLimit, query: windowQuery) ?? "" }, cache)
    }
}
