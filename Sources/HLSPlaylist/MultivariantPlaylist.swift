/// A multivariant ("master") playlist (RFC 8216 §4.3.4).
public struct MultivariantPlaylist: Sendable, Equatable {
    /// `#EXT-X-VERSION`.
    public var version: Int
    /// `#EXT-X-INDEPENDENT-SEGMENTS` (§4.3.5.1).
    public var independentSegments: Bool
    public var variants: [VariantStream]
    /// `#EXT-X-I-FRAME-STREAM-INF` entries (§4.3.4.3), for trick play and fast scrubbing.
    public var iFrameStreams: [IFrameStream]
    /// `#EXT-X-SESSION-DATA` entries (§4.3.4.4): metadata such as the stream's title.
    public var sessionData: [SessionData]
    /// `#EXT-X-START:TIME-OFFSET=` (§4.3.5.2): where players should start; negative counts
    /// back from the live edge.
    public var startOffset: Double?
    /// `#EXT-X-CONTENT-STEERING`: the steering manifest that ranks the variants' pathways
    /// (`VariantStream.pathwayID`).
    public var contentSteering: ContentSteering?

    public init(version: Int = 3, independentSegments: Bool = true, variants: [VariantStream], iFrameStreams: [IFrameStream] = [],
                sessionData: [SessionData] = [], startOffset: Double? = nil, contentSteering: ContentSteering? = nil) {
        self.contentSteering = contentSteering
        self.version = version
        self.independentSegments = independentSegments
        self.variants = variants
        self.iFrameStreams = iFrameStreams
        self.sessionData = sessionData
        self.startOffset = startOffset
    }

    /// Whether the variants carry sound, as their `CODECS` say (§4.3.4.2 requires every
    /// elementary stream's format there): an audio codec in any variant's list. Nil when no
    /// variant declares codecs, so nothing can be said.
    public var carriesAudio: Bool? {
        let declared = variants.map(\.codecs).filter { !$0.isEmpty }
        guard !declared.isEmpty else { return nil }
        return declared.contains { $0.contains(where: CodecString.isAudio) }
    }
}

/// RFC 6381 codec strings, as far as a master's readers need them.
public enum CodecString {
    /// The sample-entry prefixes of the audio formats HLS carries (AAC and the other MPEG-4
    /// audio object types, AC-3, E-AC-3, Opus, FLAC).
    static let audioPrefixes = ["mp4a.", "ac-3", "ec-3", "opus", "fLaC"]

    public static func isAudio(_ codec: String) -> Bool {
        audioPrefixes.contains { codec.hasPrefix($0) }
    }
}

/// `#EXT-X-SESSION-DATA:DATA-ID="...",VALUE="..."` (§4.3.4.4).
public struct SessionData: Sendable, Equatable {
    /// Reverse-DNS name, e.g. `com.sideline.title`.
    public var dataID: String
    public var value: String
    public init(dataID: String, value: String) {
        self.dataID = dataID
        self.value = value
    }

    /// A quoted-string may not hold a double quote, CR or LF (§4.2).
    public static func isQuotable(_ text: String) -> Bool {
        !text.contains { $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
    }
}

/// `#EXT-X-I-FRAME-STREAM-INF` (§4.3.4.3): an I-frame playlist, with its attributes.
public struct IFrameStream: Sendable, Equatable {
    /// `URI`: the I-frame playlist, relative to the multivariant playlist. Required.
    public var uri: String
    /// `BANDWIDTH`: peak bit rate of the I-frames. Required.
    public var bandwidth: Int
    /// `CODECS`: the video codec only.
    public var codecs: [String]
    public var resolution: VariantStream.Resolution?
    /// `PATHWAY-ID` (Content Steering), as `VariantStream.pathwayID`.
    public var pathwayID: String?

    public init(uri: String, bandwidth: Int, codecs: [String], resolution: VariantStream.Resolution?, pathwayID: String? = nil) {
        self.pathwayID = pathwayID
        self.uri = uri
        self.bandwidth = bandwidth
        self.codecs = codecs
        self.resolution = resolution
    }
}

/// `#EXT-X-STREAM-INF` and its URI line (§4.3.4.2).
public struct VariantStream: Sendable, Equatable {
    public struct Resolution: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// The media playlist's URI, relative to the multivariant playlist. Required.
    public var uri: String
    /// `BANDWIDTH`: peak segment bit rate in bits per second. Required.
    public var bandwidth: Int
    /// `AVERAGE-BANDWIDTH`: average segment bit rate. Optional.
    public var averageBandwidth: Int?
    /// `CODECS`: RFC 6381 codec strings, e.g. `avc1.64001f,mp4a.40.2`. Should be present.
    public var codecs: [String]
    /// `RESOLUTION`. Should be present for video.
    public var resolution: Resolution?
    /// `FRAME-RATE`, rendered with three decimals. Should be present for video.
    public var frameRate: Double?
    /// `VIDEO-RANGE` (draft-pantos-hls-rfc8216bis §4.4.6.2): SDR, PQ or HLG.
    public var videoRange: String?
    /// `CLOSED-CAPTIONS=NONE` (§4.3.4.2): say so explicitly, so players do not look for them.
    public var noClosedCaptions: Bool
    /// `PATHWAY-ID` (Content Steering): the pathway (a server, a CDN) this copy of the
    /// variant is fetched through.
    public var pathwayID: String?

    public init(uri: String, bandwidth: Int, averageBandwidth: Int? = nil, codecs: [String], resolution: Resolution? = nil, frameRate: Double? = nil,
                videoRange: String? = nil, noClosedCaptions: Bool = false, pathwayID: String? = nil) {
        self.pathwayID = pathwayID
        self.uri = uri
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.codecs = codecs
        self.resolution = resolution
        self.frameRate = frameRate
        self.videoRange = videoRange
        self.noClosedCaptions = noClosedCaptions
    }
}

extension MultivariantPlaylist {
    public func render() -> String {
        // I-frame playlists use EXT-X-BYTERANGE and EXT-X-I-FRAMES-ONLY, which need version 4
        // (RFC 8216 §7); a client too old for those should not be offered them.
        let effectiveVersion = iFrameStreams.isEmpty ? version : max(version, 4)
        var text = "#EXTM3U\n#EXT-X-VERSION:\(effectiveVersion)\n"
        if independentSegments { text += "#EXT-X-INDEPENDENT-SEGMENTS\n" }
        if let startOffset { text += "#EXT-X-START:TIME-OFFSET=\(DecimalFormat.fixed(startOffset, places: 3))\n" }
        if let contentSteering { text += "#EXT-X-CONTENT-STEERING:" + contentSteering.attributes.joined(separator: ",") + "\n" }
        for data in sessionData where SessionData.isQuotable(data.value) && SessionData.isQuotable(data.dataID) {
            text += "#EXT-X-SESSION-DATA:DATA-ID=\"\(data.dataID)\",VALUE=\"\(data.value)\"\n"
        }
        for variant in variants {
            text += "#EXT-X-STREAM-INF:" + variant.attributes.joined(separator: ",") + "\n" + variant.uri + "\n"
        }
        for stream in iFrameStreams {
            text += "#EXT-X-I-FRAME-STREAM-INF:" + stream.attributes.joined(separator: ",") + "\n"
        }
        return text
    }
}

extension VariantStream {
    /// The EXT-X-STREAM-INF attributes, in the order Sideline renders them (a set's master adds VIDEO).
    var attributes: [String] {
        var attributes = ["BANDWIDTH=\(bandwidth)"]
        if let average = averageBandwidth { attributes.append("AVERAGE-BANDWIDTH=\(average)") }
        if !codecs.isEmpty { attributes.append("CODECS=\"\(codecs.joined(separator: ","))\"") }
        if let r = resolution { attributes.append("RESOLUTION=\(r.width)x\(r.height)") }
        // A rate that is not a positive number (a model built wrong) is left out, not rendered as one.
        if let fps = frameRate, fps.isFinite, fps > 0 { attributes.append("FRAME-RATE=\(DecimalFormat.fixed(fps, places: 3))") }
        if let range = videoRange { attributes.append("VIDEO-RANGE=\(range)") }
        if noClosedCaptions { attributes.append("CLOSED-CAPTIONS=NONE") }
        if let pathwayID { attributes.append("PATHWAY-ID=\"\(pathwayID)\"") }
        return attributes
    }
}

extension IFrameStream {
    /// The EXT-X-I-FRAME-STREAM-INF attributes, URI last.
    var attributes: [String] {
        var attributes = ["BANDWIDTH=\(bandwidth)"]
        if !codecs.isEmpty { attributes.append("CODECS=\"\(codecs.joined(separator: ","))\"") }
        if let r = resolution { attributes.append("RESOLUTION=\(r.width)x\(r.height)") }
        if let pathwayID { attributes.append("PATHWAY-ID=\"\(pathwayID)\"") }
        attributes.append("URI=\"\(uri)\"")
        return attributes
    }
}

extension MultivariantPlaylist {
    /// The same master with only `variant`'s streams: its variant stream (and any backup of it
    /// on a mirror) and its I-frame stream. What a viewer whose credential covers one variant
    /// is given, so that a player never picks a rung it may not fetch. Nil when no stream of
    /// the master is `variant`'s. A stream is the variant's when its URI's directory is named
    /// after it (`720p/index.m3u8`, `http://mirror/live/s/720p/index.m3u8`).
    public func limited(toVariant variant: String) -> MultivariantPlaylist? {
        var limited = self
        limited.variants = variants.filter { Self.variantName(of: $0.uri) == variant }
        limited.iFrameStreams = iFrameStreams.filter { Self.variantName(of: $0.uri) == variant }
        return limited.variants.isEmpty ? nil : limited
    }

    /// The variants the master's variant streams name, in order, each once: the ones
    /// `limited(toVariant:)` gives a master for.
    public var variantNames: [String] {
        var seen = Set<String>()
        return variants.compactMap { Self.variantName(of: $0.uri) }.filter { seen.insert($0).inserted }
    }

    /// The directory a stream's URI names its file in: its variant.
    static func variantName(of uri: String) -> String? {
        let path = uri[..<(uri.firstIndex(of: "?") ?? uri.endIndex)]
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        return components.count >= 2 ? String(components[components.count - 2]) : nil
    }
}

extension MultivariantPlaylist {
    /// The master as the VOD master of a recording (or a window of it): `query` (a window's,
    /// `TimeWindow.query`, rendered from parsed bounds) added to every variant and I-frame
    /// playlist URI, so a player that opens the VOD master of a window gets the same window in
    /// every variant; streams on other servers (absolute URIs: a mirror listed as a backup) left
    /// out, since they are live playlists elsewhere, not this recording.
    public func vodRendition(carrying query: String) -> MultivariantPlaylist {
        func carried(_ uri: String) -> String { query.isEmpty ? uri : uri + "?" + query }
        var vod = self
        vod.variants = variants.filter { !$0.uri.contains("://") }.map { variant in
            var carrying = variant
            carrying.uri = carried(variant.uri)
            return carrying
        }
        vod.iFrameStreams = iFrameStreams.filter { !$0.uri.contains("://") }.map { stream in
            var carrying = stream
            carrying.uri = carried(stream.uri)
            return carrying
        }
        return vod
    }
}

extension MultivariantPlaylist {
    /// The same master with every variant and I-frame stream's URI through `transform`.
    public func mappingURIs(_ transform: (String) -> String) -> MultivariantPlaylist {
        var mapped = self
        for index in mapped.variants.indices { mapped.variants[index].uri = transform(mapped.variants[index].uri) }
        for index in mapped.iFrameStreams.indices { mapped.iFrameStreams[index].uri = transform(mapped.iFrameStreams[index].uri) }
        return mapped
    }
}
