import Foundation

extension MultivariantPlaylist {
    /// Reads a multivariant playlist: the tags Sideline writes (variant streams, I-frame
    /// streams, session data, start offset, content steering and pathways). Other tags are skipped, as RFC 8216 §4.1 tells
    /// clients to do. A mirror reads its upstream's master with this.
    public static func parse(_ text: String) throws(PlaylistParseError) -> MultivariantPlaylist {
        var playlist = MultivariantPlaylist(version: 1, independentSegments: false, variants: [])
        var pending: (attributes: [String: String], line: Int)?
        for (lineNumber, line) in try PlaylistLines.read(text) {
            if !line.hasPrefix("#") {
                guard let stream = pending else { throw .uriWithoutStreamInf(uri: line, line: lineNumber) }
                playlist.variants.append(try variant(stream.attributes, uri: line, line: stream.line))
                pending = nil
                continue
            }
            let colon = line.firstIndex(of: ":")
            let tag = colon.map { String(line[..<$0]) } ?? line
            let value = colon.map { String(line[line.index(after: $0)...]) } ?? ""
            func attributes() throws(PlaylistParseError) -> [String: String] {
                guard let list = AttributeList.parse(value) else { throw .invalidValue(tag: tag, value: value, line: lineNumber) }
                return list
            }
            switch tag {
            case "#EXT-X-VERSION":
                guard let version = Int(value), version > 0 else { throw .invalidValue(tag: tag, value: value, line: lineNumber) }
                playlist.version = version
            case "#EXT-X-INDEPENDENT-SEGMENTS": playlist.independentSegments = true
            case "#EXT-X-START":
                let span = PlaylistLimits.longestSpan
                guard let offset = try attributes()["TIME-OFFSET"].flatMap({ PlaylistLimits.decimal($0, in: -span...span) }) else {
                    throw .invalidValue(tag: tag, value: value, line: lineNumber)
                }
                playlist.startOffset = offset
            case "#EXT-X-SESSION-DATA":
                let list = try attributes()
                guard let id = list["DATA-ID"], let dataValue = list["VALUE"] else { throw .invalidValue(tag: tag, value: value, line: lineNumber) }
                playlist.sessionData.append(SessionData(dataID: id, value: dataValue))
            case "#EXT-X-CONTENT-STEERING":
                let list = try attributes()
                guard let uri = list["SERVER-URI"], SessionData.isQuotable(uri), list["PATHWAY-ID"].map(ContentSteering.isPathwayID) ?? true else {
                    throw .invalidValue(tag: tag, value: value, line: lineNumber)
                }
                playlist.contentSteering = ContentSteering(serverURI: uri, pathwayID: list["PATHWAY-ID"])
            case "#EXT-X-STREAM-INF":
                pending = (try attributes(), lineNumber)
            case "#EXT-X-I-FRAME-STREAM-INF":
                let list = try attributes()
                guard let uri = list["URI"], SessionData.isQuotable(uri), let bandwidth = list["BANDWIDTH"].flatMap(PlaylistLimits.count),
                      let codecs = codecs(list["CODECS"]), let resolution = resolution(list["RESOLUTION"]),
                      list["PATHWAY-ID"].map(ContentSteering.isPathwayID) ?? true else {
                    throw .invalidValue(tag: tag, value: value, line: lineNumber)
                }
                playlist.iFrameStreams.append(IFrameStream(uri: uri, bandwidth: bandwidth, codecs: codecs, resolution: resolution, pathwayID: list["PATHWAY-ID"]))
            default:
                continue
            }
        }
        if let stream = pending { throw .streamInfWithoutURI(line: stream.line) }
        return playlist
    }

    /// The numbers are bounded (`PlaylistLimits`): they go on into sums of bit rates, pixel
    /// counts and the FRAME-RATE a master renders.
    private static func variant(_ list: [String: String], uri: String, line: Int) throws(PlaylistParseError) -> VariantStream {
        func invalid(_ name: String) -> PlaylistParseError {
            .invalidValue(tag: "#EXT-X-STREAM-INF", value: "\(name)=\(list[name] ?? "(missing)")", line: line)
        }
        guard let bandwidth = list["BANDWIDTH"].flatMap(PlaylistLimits.count) else { throw invalid("BANDWIDTH") }
        var average: Int?
        if let text = list["AVERAGE-BANDWIDTH"] {
            guard let value = PlaylistLimits.count(text) else { throw invalid("AVERAGE-BANDWIDTH") }
            average = value
        }
        var frameRate: Double?
        if let text = list["FRAME-RATE"] {
            guard let value = PlaylistLimits.decimal(text, in: Double.leastNonzeroMagnitude...PlaylistLimits.highestFrameRate) else { throw invalid("FRAME-RATE") }
            frameRate = value
        }
        guard let codecs = codecs(list["CODECS"]) else { throw invalid("CODECS") }
        guard let resolution = resolution(list["RESOLUTION"]) else { throw invalid("RESOLUTION") }
        if let pathway = list["PATHWAY-ID"], !ContentSteering.isPathwayID(pathway) { throw invalid("PATHWAY-ID") }
        return VariantStream(uri: uri, bandwidth: bandwidth, averageBandwidth: average, codecs: codecs, resolution: resolution, frameRate: frameRate,
                             videoRange: list["VIDEO-RANGE"], noClosedCaptions: list["CLOSED-CAPTIONS"] == "NONE", pathwayID: list["PATHWAY-ID"])
    }

    /// Nil when the list holds a quote (it is rendered inside one).
    private static func codecs(_ text: String?) -> [String]? {
        guard let text else { return [] }
        return SessionData.isQuotable(text) ? text.split(separator: ",").map(String.init) : nil
    }

    /// `.some(nil)` when absent or not of the form WxH (as before: left out); nil when a
    /// dimension is a number outside 1...65,535.
    private static func resolution(_ text: String?) -> VariantStream.Resolution?? {
        guard let parts = text?.split(separator: "x"), parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else { return .some(nil) }
        let dimensions = 1...PlaylistLimits.largestDimension
        guard dimensions.contains(width), dimensions.contains(height) else { return nil }
        return .init(width: width, height: height)
    }
}

extension MultivariantPlaylist {
    /// The variant a master URI in Sideline's layout names (`720p/index.m3u8`, or
    /// `720p/iframes.m3u8` with `playlist: "iframes.m3u8"`): a mirror's upstream, a pushed
    /// master. Nil for a URI of another shape.
    public static func variantName(ofURI uri: String, playlist: String) -> String? {
        let parts = uri.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1] == playlist, !parts[0].isEmpty, !parts[0].hasPrefix("."), !uri.contains("?") else { return nil }
        return String(parts[0])
    }
}
