/// `#EXT-X-RENDITION-REPORT` (§4.4.5.4): where another rendition's live edge is, so a client
/// switching to it can ask for its next part at once.
public struct RenditionReport: Sendable, Equatable {
    /// The other rendition's media playlist, relative to this one.
    public var uri: String
    /// LAST-MSN: the sequence number of its last segment, or, when it lists parts, of its last
    /// part's segment (the one being made, once it has a part).
    public var lastSequence: Int
    /// LAST-PART: the index of its last part within segment LAST-MSN; nil when it lists no parts.
    public var lastPart: Int?

    public init(uri: String, lastSequence: Int, lastPart: Int? = nil) {
        self.uri = uri
        self.lastSequence = lastSequence
        self.lastPart = lastPart
    }

    public func render() -> String {
        var text = "#EXT-X-RENDITION-REPORT:URI=\"" + uri + "\",LAST-MSN=\(lastSequence)"
        if let lastPart { text += ",LAST-PART=\(lastPart)" }
        return text + "\n"
    }

    public static func parse(attributes text: String) -> RenditionReport? {
        guard let list = AttributeList.parse(text), let uri = list["URI"], !uri.isEmpty, let sequence = list["LAST-MSN"].flatMap(PlaylistLimits.count) else { return nil }
        var report = RenditionReport(uri: uri, lastSequence: sequence)
        if let part = list["LAST-PART"] {
            guard let index = PlaylistLimits.count(part) else { return nil }
            report.lastPart = index
        }
        return report
    }
}
