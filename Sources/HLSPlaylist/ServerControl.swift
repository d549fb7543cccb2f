/// `#EXT-X-SERVER-CONTROL` (draft-pantos-hls-rfc8216bis §4.4.3.8): what the server offers
/// a client reloading a live media playlist. Sideline offers delta updates (§6.2.5.1) and
/// blocking reload (§6.2.5.2) on plain TS EVENT playlists, and with partial segments (Low-Latency
/// HLS) the hold-backs a player keeps from the live edge.
public struct ServerControl: Sendable, Equatable {
    /// `CAN-SKIP-UNTIL`: the skip boundary, in seconds from the end of the playlist. Segments
    /// that end before it may be replaced by EXT-X-SKIP. The draft asks for at least six
    /// target durations.
    public var canSkipUntil: Double?
    /// `CAN-SKIP-DATERANGES=YES`: a `_HLS_skip=v2` delta also leaves out the date ranges of the
    /// skipped segments. Only meaningful with `canSkipUntil`.
    public var canSkipDateRanges: Bool
    /// `CAN-BLOCK-RELOAD=YES`: `_HLS_msn` holds the request until that segment is listed.
    public var canBlockReload: Bool
    /// `HOLD-BACK`: how far from the end of the playlist a player should start, in seconds; at
    /// least three target durations (the draft's default when absent).
    public var holdBack: Double?
    /// `PART-HOLD-BACK`: the same for a player that plays parts; at least twice PART-TARGET,
    /// and the draft asks for three. Required when the playlist lists parts.
    public var partHoldBack: Double?

    public init(canSkipUntil: Double? = nil, canSkipDateRanges: Bool = false, canBlockReload: Bool = false, holdBack: Double? = nil, partHoldBack: Double? = nil) {
        self.canSkipUntil = canSkipUntil
        self.canSkipDateRanges = canSkipDateRanges
        self.canBlockReload = canBlockReload
        self.holdBack = holdBack
        self.partHoldBack = partHoldBack
    }

    /// The smallest skip boundary the draft allows: six target durations.
    public static func minimumSkipBoundary(targetDuration: Int) -> Double { Double(6 * targetDuration) }

    /// Nil when nothing is offered (then the tag is left out).
    public func render() -> String? {
        var attributes: [String] = []
        if let canSkipUntil {
            attributes.append("CAN-SKIP-UNTIL=" + DecimalFormat.compact(canSkipUntil))
            if canSkipDateRanges { attributes.append("CAN-SKIP-DATERANGES=YES") }
        }
        if canBlockReload { attributes.append("CAN-BLOCK-RELOAD=YES") }
        if let holdBack { attributes.append("HOLD-BACK=" + DecimalFormat.fixed(holdBack, places: 3)) }
        if let partHoldBack { attributes.append("PART-HOLD-BACK=" + DecimalFormat.fixed(partHoldBack, places: 3)) }
        guard !attributes.isEmpty else { return nil }
        return "#EXT-X-SERVER-CONTROL:" + attributes.joined(separator: ",") + "\n"
    }

    /// The tag's attribute list as a client reads it: attributes it does not know are ignored
    /// (§4.2); nil when the list is malformed or a known attribute has a value the draft does
    /// not allow.
    public static func parse(attributes text: String) -> ServerControl? {
        guard let list = AttributeList.parse(text) else { return nil }
        var control = ServerControl()
        if let skip = list["CAN-SKIP-UNTIL"] {
            guard let seconds = PlaylistLimits.decimal(skip, in: 0...PlaylistLimits.longestSpan) else { return nil }
            control.canSkipUntil = seconds
        }
        // Advice to players, which no reader of Sideline's acts on: a value out of range is left
        // out, not a reason to refuse the playlist.
        control.holdBack = list["HOLD-BACK"].flatMap { PlaylistLimits.decimal($0, in: 0...PlaylistLimits.longestSpan) }
        control.partHoldBack = list["PART-HOLD-BACK"].flatMap { PlaylistLimits.decimal($0, in: 0...PlaylistLimits.longestSpan) }
        guard let dateRanges = AttributeList.flag(list["CAN-SKIP-DATERANGES"]), let block = AttributeList.flag(list["CAN-BLOCK-RELOAD"]) else { return nil }
        control.canSkipDateRanges = dateRanges
        control.canBlockReload = block
        return control
    }
}
