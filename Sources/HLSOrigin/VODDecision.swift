import Foundation
import HLSPlaylist
import NIOCore
import OriginPolicy
import OriginRegistry
import OriginState
import Synchronization

/// `/vod/{stream}/...`: the recording so far as video on demand, for downloaders that refuse a
/// live EVENT playlist (AVAssetDownloadTask) and for clips. The same resources as `/live/`
/// (master, media and I-frame playlists, segments), with the playlists as VOD renditions
/// (`EXT-X-PLAYLIST-TYPE:VOD`, `EXT-X-ENDLIST`), optionally cut to `?start=&end=` (program
/// date-times or seconds from the start; `TimeWindow`). Decided from the registry alone, like
/// `OriginDecision`. A rendition is rendered and compressed on its first request and kept for
/// the playlist version and window it was made from (`VODRenditions`), not at every publish:
/// downloads are rare next to live reloads.
public enum VODDecision {
    /// `variantLimit`: the one variant the request's credential covers; the master then lists
    /// only that variant.
    public static func decide(path rawPath: String, query: String?, variantLimit: String? = nil, registry: StreamRegistry, renditions: VODRenditions = VODRenditions(),
                              policy: StatusPolicy = StatusPolicy()) -> OriginDecision {
        guard rawPath.hasPrefix("/vod/") else { return .refuse(policy.refuse(.notFound)) }
        let resource: OriginPath
        switch OriginPath.parse("/live/" + rawPath.dropFirst("/vod/".count)) {
        case let .success(parsed): resource = parsed
        case let .failure(rejection): return .refuse(policy.refuse(rejection))
        }
        // Segments are the recorded files, answered exactly as under /live/ (gaps, unlisted
        // names, removed streams).
        if case .segment = resource { return OriginDecision.decide(.success(resource), registry: registry, policy: policy) }
        // A recording lists whole segments: no part is ever a VOD resource.
        if case .part = resource { return .refuse(policy.refuse(.notFound)) }
        // A recording is one box's: it has no pathways to steer between.
        if case .steering = resource { return .refuse(policy.refuse(.notFound)) }
        let window: TimeWindow
        switch TimeWindow.parse(start: QueryParameter.value("start", in: query), end: QueryParameter.value("end", in: query)) {
        // Cut by the window its query says, the query that names it in URIs and tags.
        case let .success(parsed): window = parsed.canonical
        case let .failure(rejection): return .refuse(policy.refuse(.malformed(rejection.message)))
        }
        if case let .master(name) = resource, let set = registry.angleSet(named: name) {
            return setMaster(set, window: window, variantLimit: variantLimit, registry: registry, renditions: renditions)
        }
        // The stream and its renderings read together: the tag comes from the one, the
        // markers and the master from the other.
        let snapshot: StreamRegistry.Snapshot
        do { snapshot = try registry.existingSnapshot(resource.stream) } catch { return .refuse(error) }
        let (stream, rendered) = (snapshot.stream, snapshot.served)
        let cache: CachePolicy = stream.phase == .ended ? .endedPlaylist : .livePlaylist(maxAge: max(1, stream.targetDuration / 2))
        // The window rendered from its parsed bounds, never the query's text: it goes into
        // every variant URI of the master and into the entity tag.
        let windowQuery = window.query
        let tag = { (source: RenderedPlaylist) in String(source.etag.dropFirst().dropLast()) + "-vod" + (windowQuery.isEmpty ? "" : "-" + windowQuery) }
        guard let variantName = resource.variant else {
            guard let master = variantLimit != nil ? rendered.limitedMasters[variantLimit!] : rendered.master,
                  let value = variantLimit != nil ? stream.masterPlaylist?.limited(toVariant: variantLimit!) : stream.masterPlaylist else {
                if let variantLimit { return .refuse(.noSuchVariant(variantLimit, of: resource.stream, has: stream.variantOrder)) }
                return .refuse(Refusal(.nothingRecorded, "stream '\(resource.stream)' has no master playlist yet"))
            }
            return .playlist(renditions.rendered(tag: tag(master)) { value.vodRendition(carrying: windowQuery).render() }, cache)
        }
        guard stream.variants[variantName] != nil else {
            return .refuse(.noSuchVariant(variantName, of: resource.stream))
        }
        let iFrames = resource == .iFramePlaylist(stream: resource.stream, variant: variantName)
        let variant = rendered.variants[variantName]
        guard let media = variant?.playlist, let served = iFrames ? variant?.iFrames : media else {
            return .refuse(Refusal(.nothingRecorded, "variant '\(variantName)' has recorded nothing yet"))
        }
        // The live version's tag changes with the markers and the replacements, and so does the
        // rendition's; the I-frame rendition's depends on the media playlist's replacements too.
        // A rendition made for this tag is sent as it is: the walks below (replacements, markers,
        // the window) are done once per version and window, not per request.
        let renditionTag = tag(served.full) + (iFrames ? "-" + String(media.full.etag.dropFirst().dropLast()) : "")
        if let made = renditions.made(tag: renditionTag) { return .playlist(made, cache) }
        // The recording's view: late segments of a pushed backlog in place of their stand-ins
        // (the live playlist keeps the stand-ins players saw). Markers go where the moments they
        // mark lie, so a window keeps the markers of its entries.
        let recording = iFrames ? served.playlist.applyingReplacements(of: media.playlist)
            : stream.markers.isEmpty ? media.playlist.applyingReplacements() : media.playlist.applyingReplacements().placingByTime(stream.markers)
        switch recording.vodRendition(covering: window) {
        case let .success(vod):
            return .playlist(renditions.rendered(tag: renditionTag) { vod.render() }, cache)
        case let .failure(rejection):
            return .refuse(policy.refuse(.malformed(rejection.message)))
        }
    }
}
