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
    /// `_HLS_part`: with `_HLS_msn`, hold the answer until the playlist lists this part of that
    /// segment (Low-Latency HLS); where a stream lists no parts, until the segment is listed.
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

/// How far one version of a media playlist has got, as blocking reload weighs it: its last
/// listed segment and, where the stream lists parts (Low-Latency HLS), how many parts of the
/// segment being made it lists.
public struct PublishedEdge: Sendable, Equatable {
    /// The media sequence number of the last entry (-1 while there is none).
    public var lastSequence: Int
    /// Parts listed of segment `lastSequence + 1`, the one being made.
    public var partsOfNext: Int
    /// How many parts each segment is cut into (`PartClock.partsPerSegment`); nil: no parts.
    public var partsPerSegment: Int?
    /// PART-TARGET, in seconds: it sets the draft's Advance Part Limit.
    public var partTarget: Double?

    public init(lastSequence: Int, partsOfNext: Int = 0, partsPerSegment: Int? = nil, partTarget: Double? = nil) {
        self.lastSequence = lastSequence
        self.partsOfNext = partsOfNext
        self.partsPerSegment = partsPerSegment
        self.partTarget = partTarget
    }

    /// How many parts past the last one listed a request may ask for (draft-pantos-hls-rfc8216bis
    /// §6.2.5.2, the Advance Part Limit): three seconds of parts when a part is shorter than a
    /// second, else three.
    public var advancePartLimit: Int {
        guard let partTarget, partTarget > 0, partTarget < 1 else { return 3 }
        return Int((3 / partTarget).rounded(.down))
    }

    /// Where this version stands, as one number a held request compares with the one it waits
    /// for (`position(sequence:part:)`): a listed segment counts as all its parts.
    public var position: Int {
        partsOfNext > 0 ? Self.position(sequence: lastSequence + 1, part: partsOfNext - 1) : Self.position(sequence: lastSequence, part: nil)
    }

    /// The position of part `part` of segment `sequence`, or of the whole segment (nil).
    /// Saturating: a client's number cannot wrap it round (blocking reload refuses a sequence
    /// more than two past the last listed before anything waits for it).
    public static func position(sequence: Int, part: Int?) -> Int {
        let (scaled, overflow) = sequence.multipliedReportingOverflow(by: partsPerPosition)
        guard !overflow else { return sequence < 0 ? Int.min : Int.max }
        let (sum, over) = scaled.addingReportingOverflow(min(max(part ?? (partsPerPosition - 1), 0), partsPerPosition - 1))
        return over ? Int.max : sum
    }

    /// More than any segment has parts (`OriginPath.largestPartIndex` is 999).
    static let partsPerPosition = 1024
}

/// Blocking playlist reload (draft-pantos-hls-rfc8216bis §6.2.5.2) as a pure decision over the
/// playlist version at hand: answer now, hold until a sequence number (or one of its parts) is
/// listed, or refuse.
public enum BlockingReload: Sendable, Equatable {
    case answerNow
    /// Hold until the playlist lists `sequence`, for at most `seconds`; then answer with
    /// whatever is current (never a 503: every player measured here stops on one).
    case hold(sequence: Int, seconds: Double)
    /// Hold until the playlist lists part `part` of segment `sequence` (or the whole segment),
    /// for at most `seconds`; then 503, as the draft says. Only players that ask for parts ask
    /// this (hls.js in low-latency mode), and they reload on a 503.
    case holdForPart(sequence: Int, part: Int, seconds: Double)
    case badRequest(String)

    /// How long a held request waits at most, in target durations: the draft's suggested
    /// bound; by then a live playlist has had three chances to grow.
    public static let holdFactor = 3.0

    /// `lastSequence`: the media sequence number of the playlist version's last entry (-1 while
    /// there is none); `complete`: ended or VOD, so it never changes again.
    public static func decide(_ directives: PlaylistDirectives, lastSequence: Int, complete: Bool, targetDuration: Int, offered: Bool) -> BlockingReload {
        decide(directives, edge: PublishedEdge(lastSequence: lastSequence), complete: complete, targetDuration: targetDuration, offered: offered)
    }

    /// The decision at part granularity. `_HLS_msn` alone waits for the whole segment; with
    /// `_HLS_part`, for that part of it or anything later, which a listed segment satisfies
    /// whole: a part index past the last a segment has (hls.js asks for part 4 of a segment
    /// whose parts 0-3 are listed before the segment is) waits for the next segment's first.
    /// Refused (400), as the draft says: a segment more than two past the last listed, and a
    /// part further past the last one listed than the Advance Part Limit.
    public static func decide(_ directives: PlaylistDirectives, edge: PublishedEdge, complete: Bool, targetDuration: Int, offered: Bool) -> BlockingReload {
        guard let wanted = directives.mediaSequence, offered, !complete else { return .answerNow }
        // "more than two past the last segment": the client has the wrong playlist or clock.
        if wanted > edge.lastSequence + 2 {
            return .badRequest("_HLS_msn=\(wanted) is more than two segments past the last one listed (\(edge.lastSequence))")
        }
        let seconds = holdFactor * Double(max(targetDuration, 1))
        guard let part = directives.part, let partsPerSegment = edge.partsPerSegment else {
            return wanted <= edge.lastSequence ? .answerNow : .hold(sequence: wanted, seconds: seconds)
        }
        if edge.position >= PublishedEdge.position(sequence: wanted, part: part) { return .answerNow }
        // Parts from the last one listed to the one asked for. Bounded: `wanted` is at most two
        // past the last listed here, and a part index is taken no further than a segment's parts
        // past the last (anything beyond is past the limit anyway).
        let last = edge.partsOfNext > 0 ? (sequence: edge.lastSequence + 1, part: edge.partsOfNext - 1) : (sequence: edge.lastSequence, part: partsPerSegment - 1)
        let ahead = (wanted - last.sequence) * partsPerSegment + (min(part, 2 * partsPerSegment + edge.advancePartLimit) - last.part)
        if ahead > edge.advancePartLimit {
            return .badRequest("_HLS_msn=\(wanted)&_HLS_part=\(part) is \(ahead) parts past the last one listed (part \(last.part) of \(last.sequence)); the limit is \(edge.advancePartLimit)")
        }
        return .holdForPart(sequence: wanted, part: part, seconds: seconds)
    }
}
