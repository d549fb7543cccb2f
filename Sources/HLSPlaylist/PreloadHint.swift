/// `#EXT-X-PRELOAD-HINT` (§4.4.5.3) of TYPE=PART: the part a client may ask for before it is
/// listed; the server holds that request until the part is complete.
public struct PreloadHint: Sendable, Equatable {
    public var uri: String

    public init(uri: String) {
        self.uri = uri
    }

    public func render() -> String { "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"" + uri + "\"\n" }

    /// Nil when malformed, without a URI, or of a TYPE other than PART (a MAP hint: Sideline's
    /// MPEG-TS has no initialisation section).
    public static func parse(attributes text: String) -> PreloadHint? {
        guard let list = AttributeList.parse(text), list["TYPE"] == "PART", let uri = list["URI"], !uri.isEmpty else { return nil }
        return PreloadHint(uri: uri)
    }
}
