/// The delivery directives a client adds to a media playlist's URL (draft-pantos-hls-rfc8216bis
/// §6.2.5): `_HLS_msn` and `_HLS_part` for blocking reload, `_HLS_skip` for delta updates.
/// Other query parameters (cache busters, tokens) are ignored. Parsed from the raw query, pure.
public struct PlaylistDirectives: Sendable, Equatable {
    public enum Skip: Sendable, Equatable {
        /// `_HLS_skip=YES`: skip segments.
        case segments
        /// `_HLS_skip=v2`: skip segments and their date ranges.
        case segmentsAndDateRanges
    }

    /// `_HLS_msn`: hold the answer until the playlist lists this media sequence number.
    public var mediaSequence: Int?
    /// `_HLS_part`: Sideline has no partial segments, so a part of segment N is ready when
    /// segment N is listed; kept only to check that it comes with `_HLS_msn`.
    public var part: Int?
    public var skip: Skip?

    public init(mediaSequence: Int? = nil, part: Int? = nil, skip: Skip? = nil) {
        self.mediaSequence = mediaSequence
        self.part = part
        self.skip = skip
    }

    /// Reads the directives from a query string (without the '?'). A directive with a value
    /// the draft does not allow is a 400, with a reason that names it.
    public static func parse(query: String?) -> Result<PlaylistDirectives, OriginPath.Rejection> {
        var directives = PlaylistDirectives()
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0]
            let value = parts.count > 1 ? String(parts[1]) : ""
            switch name {
            case "_HLS_msn":
                guard let n = Int(value), n >= 0 else { return .failure(.malformed("_HLS_msn must be a media sequence number (a non-negative integer), not '\(value)'")) }
                directives.mediaSequence = n
            case "_HLS_part":
                guard let n = Int(value), n >= 0 else { return .failure(.malformed("_HLS_part must be a part index (a non-negative integer), not '\(value)'")) }
                directives.part = n
            case "_HLS_skip":
                switch value {
                case "YES": directives.skip = .segments
                case "v2": directives.skip = .segmentsAndDateRanges
                default: return .failure(.malformed("_HLS_skip must be YES or v2, not '\(value)'"))
                }
            default:
                continue
            }
        }
        if directives.part != nil, directives.mediaSequence == nil {
            return .failure(.malformed("_HLS_part needs _HLS_msn (draft-pantos-hls-rfc8216bis §6.2.5.2)"))
        }
        return .success(directives)
    }
}

/// Blocking playlist reload (draft-pantos-hls-rfc8216bis §6.2.5.2) as a pure decision over the
/// playlist version at hand: answer now, hold until a sequence number is listed, or refuse.
public enum BlockingReload: Sendable, Equatable {
    case answerNow
    /// Hold until the playlist lists `sequence`, for at most `seconds`; then answer with
    /// whatever is current (never a 503: every player measured here stops on one).
    case hold(sequence: Int, seconds: Double)
    case badRequest(String)

    /// How long a held request waits at most, in target durations: the draft's suggested
    /// bound; by then a live playlist has had three chances to grow.
    public static let holdFactor = 3.0

    /// `lastSequence`: the media sequence number of the playlist version's last entry (-1 while
    /// there is none); `complete`: ended or VOD, so it never changes again.
    public static func decide(_ directives: PlaylistDirectives, lastSequence: Int, complete: Bool, targetDuration: Int, offered: Bool) -> BlockingReload {
        guard let wanted = directives.mediaSequence, offered, !complete else { return .answerNow }
        if wanted <= lastSequence { return .answerNow }
        // "more than two past the last segment": the client has the wrong playlist or clock.
        if wanted > lastSequence + 2 {
            return .badRequest("_HLS_msn=\(wanted) is more than two segments past the last one listed (\(lastSequence))")
        }
        return .hold(sequence: wanted, seconds: holdFactor * Double(max(targetDuration, 1)))
    }
}
