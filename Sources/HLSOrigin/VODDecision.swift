import Foundation
import HLSPlaylist

/// `/vod/{stream}/...`: the recording so far as video on demand, for downloaders that refuse a
/// live EVENT playlist (AVAssetDownloadTask) and for clips. The same resources as `/live/`
/// (master, media and I-frame playlists, segments), with the playlists as VOD renditions
/// (`EXT-X-PLAYLIST-TYPE:VOD`, `EXT-X-ENDLIST`), optionally cut to `?start=&end=` (program
/// date-times or seconds from the start; `TimeWindow`). Decided from the registry alone, like
/// `OriginDecision`; unlike a live playlist, a VOD rendition is rendered per request (a few
/// milliseconds for 3 hours; downloads are rare next to live reloads).
public enum VODDecision {
    public static func decide(path rawPath: String, query: String?, registry: StreamRegistry, policy: StatusPolicy = StatusPolicy()) -> OriginDecision {
        guard rawPath.hasPrefix("/vod/") else { return .refuse(policy.refuse(.notFound)) }
        let resource: OriginPath
        switch OriginPath.parse("/live/" + rawPath.dropFirst("/vod/".count)) {
        case let .success(parsed): resource = parsed
        case let .failure(rejection): return .refuse(policy.refuse(rejection))
        }
        let window: TimeWindow
        switch TimeWindow.parse(start: parameter("start", in: query), end: parameter("end", in: query)) {
        case let .success(parsed): window = parsed
        case let .failure(rejection): return .refuse(policy.refuse(.malformed(rejection.message)))
        }
        guard let stream = registry.stream(named: resource.stream) else {
            return .refuse(.init(status: 404, reason: "no stream named '\(resource.stream)'"))
        }
        if stream.phase == .removed { return .refuse(.init(status: 410, reason: "stream '\(resource.stream)' was removed", cache: .gone)) }
        let cache: CachePolicy = stream.phase == .ended ? .endedPlaylist : .livePlaylist(maxAge: max(1, stream.targetDuration / 2))
        guard let variantName = resource.variant else {
            guard let master = stream.master else { return .refuse(.init(status: 404, reason: "stream '\(resource.stream)' has no master playlist yet", cache: .transientError)) }
            let text = carryWindow(query: windowQuery(query), intoMaster: String(buffer: master.plain))
            return .playlist(RenderedPlaylist(text: text, tag: String(master.etag.dropFirst().dropLast()) + "-vod-" + String(text.hashValue, radix: 36)), cache)
        }
        guard let variant = stream.variants[variantName] else {
            return .refuse(.init(status: 404, reason: "stream '\(resource.stream)' has no variant '\(variantName)'"))
        }
        let served: ServedMediaPlaylist?
        switch resource {
        case .segment(_, _, let name):
            guard let file = variant.segments[name] else { return .refuse(.init(status: 404, reason: "no segment '\(name)' in the recording")) }
            return .segment(file)
        case .iFramePlaylist: served = variant.iFramePlaylist
        default: served = variant.playlist
        }
        guard let served else { return .refuse(.init(status: 404, reason: "variant '\(variantName)' has recorded nothing yet", cache: .transientError)) }
        switch served.playlist.vodRendition(covering: window) {
        case let .success(vod):
            let text = vod.render()
            return .playlist(RenderedPlaylist(text: text, tag: String(served.full.etag.dropFirst().dropLast()) + "-vod-" + String(text.hashValue, radix: 36)), cache)
        case let .failure(rejection):
            return .refuse(policy.refuse(.malformed(rejection.message)))
        }
    }

    /// A query parameter's value, percent-decoded ('+' stays '+': it begins a time zone offset).
    static func parameter(_ name: String, in query: String?) -> String? {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0] == name else { continue }
            return parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
        }
        return nil
    }

    /// The `start` and `end` parameters as the master passes them on to its variants.
    static func windowQuery(_ query: String?) -> String {
        (query ?? "").split(separator: "&").filter { $0.hasPrefix("start=") || $0.hasPrefix("end=") }.joined(separator: "&")
    }

    /// The master with `query` added to every variant and I-frame playlist URI, so a player
    /// that opens the VOD master of a window gets the same window in every variant.
    static func carryWindow(query: String, intoMaster text: String) -> String {
        guard !query.isEmpty else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if line.isEmpty { return "" }
            if !line.hasPrefix("#") { return line + "?" + query }
            guard let uri = line.range(of: "URI=\""), let close = line[uri.upperBound...].firstIndex(of: "\"") else { return String(line) }
            return String(line[..<close]) + "?" + query + String(line[close...])
        }.joined(separator: "\n")
    }
}
