import Foundation
import HLSPlaylist
import MPEGTS
import SidelineCore

/// The requests a mirror makes of its upstream and what each answer means. Pure.
public enum UpstreamRequests {
    /// The next reload of a media playlist. When the upstream offers blocking reload
    /// (`CAN-BLOCK-RELOAD=YES`, draft-pantos-hls-rfc8216bis §6.2.5.2) and the playlist is still
    /// live, it asks for the segment after the last one listed (`_HLS_msn`), so the answer
    /// comes the moment that segment is listed; otherwise the plain URL, polled.
    public static func reload(_ media: URL, after previous: MediaPlaylist?, canBlockReload: Bool) -> URL {
        guard canBlockReload, let previous, !previous.endList,
              var components = URLComponents(url: media, resolvingAgainstBaseURL: true) else { return media }
        // Both bounded (PlaylistLimits): the sum cannot overflow.
        let next = previous.mediaSequence + previous.segments.count
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "_HLS_msn" } + [URLQueryItem(name: "_HLS_msn", value: String(next))]
        return components.url ?? media
    }

    /// The target duration the waits below are computed from: the upstream's, but at most a
    /// minute. An upstream is not trusted: one that says a day would hold every reload for days
    /// (and one that says Int.max would overflow the arithmetic).
    static func waitingTarget(_ targetDuration: Int) -> Int { min(max(targetDuration, 1), 60) }

    /// How long a reload may take: a blocking reload is held up to three target durations
    /// by a Sideline upstream (the draft's minimum), plus two seconds for the network.
    public static func reloadTimeout(targetDuration: Int) -> Double { Double(3 * waitingTarget(targetDuration) + 2) }

    /// A segment's download: at least 10 s, or four target durations on a slow uplink.
    public static func downloadTimeout(targetDuration: Int) -> Double { Double(max(10, 4 * waitingTarget(targetDuration))) }

    /// The I-frame playlist's fetch, best effort: a target duration plus two seconds.
    public static func iFramesTimeout(targetDuration: Int) -> Double { Double(waitingTarget(targetDuration) + 2) }

    /// Without blocking reload, a playlist is polled every half target duration (RFC 8216 §6.3.4).
    public static func pollInterval(targetDuration: Int) -> Double { Double(waitingTarget(targetDuration)) / 2 }

    /// What an answer to a segment request means.
    public enum SegmentOutcome: Sendable, Equatable {
        /// Whole and plausible: store it and list it.
        case store
        /// The upstream no longer has it (404, 410): listed as EXT-X-GAP, so one lost segment
        /// does not hold back all that follow.
        case lost
        /// Anything else: not stored; the round fails and is retried.
        case failed(String)
    }

    public static func segmentOutcome(_ answer: UpstreamAnswer, url: URL) -> SegmentOutcome {
        switch answer.status {
        case 200:
            if let failure = SegmentCheck.verify(answer.body, announced: answer.announcedLength) {
                return .failed("\(url.absoluteString) failed its check, not stored: \(failure)")
            }
            return .store
        case 404, 410:
            return .lost
        default:
            return .failed("\(url.absoluteString) answered \(answer.status)")
        }
    }

    /// A segment URI the mirror can store under the variant's directory as it is (a Sideline
    /// upstream lists `000042.ts`).
    public static func isPlainFileName(_ uri: String) -> Bool {
        !uri.isEmpty && !uri.contains("/") && !uri.contains("?") && !uri.hasPrefix(".") && !uri.contains(":")
    }
}

extension Backoff {
    /// A mirror's retries of its upstream: 0.2 s doubling to 1 s, so the upstream's return is
    /// noticed within a fraction of a segment.
    public static var upstreamRetry: Backoff { Backoff(first: 0.2, maximum: 1) }
}
