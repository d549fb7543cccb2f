import Foundation

/// Reads a media playlist's lines into a `MediaPlaylist` and, for a live one, its server
/// control and Low-Latency edge (`MediaPlaylist.parse`, `parseWithServerControl`, `parseLive`):
/// every number bounded (`PlaylistLimits`), every refusal naming its line.
enum MediaPlaylistReader {
    static func read(_ text: String, lowLatency: Bool) throws(PlaylistParseError) -> (playlist: MediaPlaylist, serverControl: ServerControl?, edge: LowLatencyEdge?) {
        var serverControl: ServerControl?
        var edge: LowLatencyEdge?
        var nextParts: [PartialSegment] = []
        var firstPartLine = 0
        var playlist = MediaPlaylist(targetDuration: 0, playlistType: nil, independentSegments: false)
        var sawTarget = false
        var pending: MediaSegment?
        var pendingLine = 0
        var nextDate: Date?
        var nextDiscontinuity = false
        var nextGap = false
        var nextRange: MediaSegment.ByteRange?
        var nextRangeLine = 0
        var nextDateRanges: [DateRange] = []
        var previousRangeEnd: [String: Int] = [:]
        /// Parts by the index of their segment (made sequence numbers at the end, once
        /// EXT-X-MEDIA-SEQUENCE is known wherever it stood).
        var listedParts: [Int: [PartialSegment]] = [:]
        var hint: PreloadHint?
        var reports: [RenditionReport] = []

        for (lineNumber, line) in try PlaylistLines.read(text) {
            if !line.hasPrefix("#") {
                guard var segment = pending else { throw .uriWithoutExtinf(uri: line, line: lineNumber) }
                segment.uri = line
                segment.programDateTime = nextDate
                segment.discontinuity = nextDiscontinuity
                segment.gap = nextGap
                segment.dateRanges = nextDateRanges
                if var range = nextRange {
                    // Length and offset are each within PlaylistLimits.largestNumber, and so is an
                    // offset carried on from the range before, so the sum cannot overflow.
                    if range.offset < 0 {
                        let end = previousRangeEnd[line] ?? 0
                        guard end <= PlaylistLimits.largestNumber else {
                            throw .invalidValue(tag: "#EXT-X-BYTERANGE", value: "\(range.length) (following on at byte \(end))", line: nextRangeLine)
                        }
                        range.offset = end
                    }
                    previousRangeEnd[line] = range.offset + range.length
                    segment.byteRange = range
                }
                if !nextParts.isEmpty { listedParts[playlist.segments.count] = nextParts }
                playlist.segments.append(segment)
                nextParts = []
                pending = nil
                nextDate = nil
                nextDiscontinuity = false
                nextGap = false
                nextRange = nil
                nextDateRanges = []
                continue
            }
            let (tag, value) = split(line)
            func invalid() -> PlaylistParseError { .invalidValue(tag: tag, value: value ?? "", line: lineNumber) }
            /// A decimal-integer within `PlaylistLimits.largestNumber`, so sums of it cannot overflow.
            func integer() throws(PlaylistParseError) -> Int {
                guard let v = value, let n = PlaylistLimits.count(v) else { throw invalid() }
                return n
            }
            switch tag {
            case "#EXT-X-VERSION": playlist.version = try integer()
            case "#EXT-X-TARGETDURATION":
                let target = try integer()
                guard Double(target) <= PlaylistLimits.longestSegment else { throw invalid() }
                playlist.targetDuration = target
                sawTarget = true
            case "#EXT-X-MEDIA-SEQUENCE": playlist.mediaSequence = try integer()
            case "#EXT-X-DISCONTINUITY-SEQUENCE": playlist.discontinuitySequence = try integer()
            case "#EXT-X-PLAYLIST-TYPE":
                guard let v = value, let type = MediaPlaylist.PlaylistType(rawValue: v) else {
                    throw .invalidValue(tag: tag, value: value ?? "", line: lineNumber)
                }
                playlist.playlistType = type
            case "#EXT-X-INDEPENDENT-SEGMENTS": playlist.independentSegments = true
            case "#EXT-X-ENDLIST": playlist.endList = true
            case "#EXT-X-DISCONTINUITY": nextDiscontinuity = true
            case "#EXT-X-GAP": nextGap = true
            case "#EXT-X-DATERANGE":
                guard let v = value, let range = DateRange.parse(attributes: v) else {
                    throw .invalidValue(tag: tag, value: value ?? "", line: lineNumber)
                }
                nextDateRanges.append(range)
            case "#EXT-X-I-FRAMES-ONLY": playlist.iFramesOnly = true
            case "#EXT-X-SERVER-CONTROL":
                guard let v = value, let control = ServerControl.parse(attributes: v) else {
                    throw .invalidValue(tag: tag, value: value ?? "", line: lineNumber)
                }
                serverControl = control
            case "#EXT-X-PART-INF", "#EXT-X-PART", "#EXT-X-PRELOAD-HINT", "#EXT-X-RENDITION-REPORT":
                guard lowLatency else { continue }
                switch tag {
                case "#EXT-X-PART-INF":
                    guard let v = value, let list = AttributeList.parse(v), let target = list["PART-TARGET"],
                          let seconds = PlaylistLimits.decimal(target, in: 0...PlaylistLimits.longestSegment), seconds > 0 else { throw invalid() }
                    edge = LowLatencyEdge(partTarget: seconds)
                case "#EXT-X-PART":
                    guard let v = value, let part = PartialSegment.parse(attributes: v) else { throw invalid() }
                    if firstPartLine == 0 { firstPartLine = lineNumber }
                    nextParts.append(part)
                case "#EXT-X-PRELOAD-HINT":
                    // A hint of another TYPE (MAP) is left to the clients that use it.
                    guard let v = value, AttributeList.parse(v) != nil else { throw invalid() }
                    if let parsed = PreloadHint.parse(attributes: v) { hint = parsed }
                default:
                    if let report = value.flatMap(RenditionReport.parse(attributes:)) { reports.append(report) }
                }
            case "#EXT-X-BYTERANGE":
                // <length>[@<offset>]; without an offset the range follows the previous one of the
                // same URI (§4.3.2.2). Sideline always writes the offset.
                let parts = (value ?? "").split(separator: "@", omittingEmptySubsequences: false)
                guard parts.count <= 2, let length = PlaylistLimits.count(parts[0]) else { throw invalid() }
                var offset = -1
                if parts.count == 2 {
                    guard let given = PlaylistLimits.count(parts[1]) else { throw invalid() }
                    offset = given
                }
                nextRange = MediaSegment.ByteRange(length: length, offset: offset)
                nextRangeLine = lineNumber
            case "#EXT-X-PROGRAM-DATE-TIME":
                guard let v = value, let date = ProgramDateTime.parse(Substring(v)) else {
                    throw .invalidValue(tag: tag, value: value ?? "", line: lineNumber)
                }
                nextDate = date
            case "#EXTINF":
                if pending != nil { throw .extinfWithoutURI(line: pendingLine) }
                let durationText = value.map { String($0.prefix { $0 != "," }) } ?? ""
                guard let duration = PlaylistLimits.decimal(durationText, in: 0...PlaylistLimits.longestSegment) else { throw invalid() }
                pending = MediaSegment(uri: "", duration: duration)
                pendingLine = lineNumber
            default:
                continue
            }
        }
        if pending != nil { throw .extinfWithoutURI(line: pendingLine) }
        playlist.trailingDateRanges = nextDateRanges
        guard sawTarget else { throw .missingTargetDuration }
        if var found = edge {
            for (index, parts) in listedParts { found.listedParts[playlist.mediaSequence + index] = parts }
            found.openParts = nextParts
            found.openProgramDateTime = nextParts.isEmpty ? nil : nextDate
            found.openDiscontinuity = !nextParts.isEmpty && nextDiscontinuity
            found.hint = hint
            found.reports = reports
            edge = found
        } else if firstPartLine != 0 {
            throw .invalidValue(tag: "#EXT-X-PART", value: "without #EXT-X-PART-INF", line: firstPartLine)
        }
        return (playlist, serverControl, edge)
    }

    private static func split(_ line: String) -> (String, String?) {
        guard let colon = line.firstIndex(of: ":") else { return (line, nil) }
        return (String(line[..<colon]), String(line[line.index(after: colon)...]))
    }
}
