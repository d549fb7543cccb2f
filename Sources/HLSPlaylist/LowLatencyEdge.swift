import Foundation

/// The live edge of a media playlist as Low-Latency HLS shows it (draft-pantos-hls-rfc8216bis
/// §4.4.3.7, §4.4.4.9, §4.4.5.3, §4.4.5.4): the parts of the newest listed segments, the parts
/// of the segment being made, the hint for the next part and where every other rendition's
/// edge is. A live overlay, never recorded: the recording lists whole segments, and a segment
/// is exactly its parts one after another.
///
/// Players that do not do low latency skip all of it (§4.1: unknown tags are ignored) and play
/// the segments as before.
public struct LowLatencyEdge: Sendable, Equatable {
    /// `EXT-X-PART-INF:PART-TARGET`: no part is longer.
    public var partTarget: Double
    /// The parts of the newest listed segments, by media sequence number. Segments older than
    /// these are listed without parts (the draft lets a server drop them after three target
    /// durations); their parts stay downloadable all the same.
    public var listedParts: [Int: [PartialSegment]]
    /// The parts of the segment being made (media sequence number last + 1), in order.
    public var openParts: [PartialSegment]
    /// When the segment being made was captured: its EXT-X-PROGRAM-DATE-TIME, before its parts,
    /// so its parts have dates before its URI is listed.
    public var openProgramDateTime: Date?
    /// The segment being made follows its entry before with EXT-X-DISCONTINUITY (the camera
    /// again after a stand-in, a new encoder): said before its parts too, so a player that
    /// appends them knows before the segment is listed.
    public var openDiscontinuity = false
    /// The EXT-X-DATERANGE tags the segment being made will carry (a fill span it closes, an
    /// outage it ends): before its parts too, so a later version inserts nothing before them.
    public var openDateRanges: [DateRange] = []
    /// The part after the last one listed.
    public var hint: PreloadHint?
    /// Every other rendition a player may switch to.
    public var reports: [RenditionReport]
    /// How many parts each segment is cut into (`PartClock.partsPerSegment`). Not rendered:
    /// blocking reload counts the parts a request asks ahead with it (the Advance Part Limit).
    public var partsPerSegment: Int

    public init(partTarget: Double, partsPerSegment: Int = 1, listedParts: [Int: [PartialSegment]] = [:], openParts: [PartialSegment] = [],
                openProgramDateTime: Date? = nil, hint: PreloadHint? = nil, reports: [RenditionReport] = []) {
        self.partTarget = partTarget
        self.partsPerSegment = max(1, partsPerSegment)
        self.listedParts = listedParts
        self.openParts = openParts
        self.openProgramDateTime = openProgramDateTime
        self.hint = hint
        self.reports = reports
    }

    /// Where this edge has got, as a rendition report gives it: the segment of the last part
    /// listed and that part's index, for a playlist whose last entry is `lastSequence`.
    public func lastPart(after lastSequence: Int) -> (sequence: Int, part: Int?) {
        if !openParts.isEmpty { return (lastSequence + 1, openParts.count - 1) }
        if let parts = listedParts[lastSequence], !parts.isEmpty { return (lastSequence, parts.count - 1) }
        return (lastSequence, nil)
    }

    /// The header line, after EXT-X-TARGETDURATION.
    func headerLine() -> String { "#EXT-X-PART-INF:PART-TARGET=" + DecimalFormat.fixed(partTarget, places: 6) + "\n" }

    /// The lines of `parts`, in order.
    static func lines(of parts: [PartialSegment]) -> String { parts.map { $0.render() }.joined() }

    /// What follows the last entry (and its trailing date ranges): the open segment's date and
    /// parts, the hint, the reports.
    public func tail() -> String {
        var text = ""
        if !openParts.isEmpty { text += openDateRanges.map { $0.render() }.joined() }
        if !openParts.isEmpty, openDiscontinuity { text += "#EXT-X-DISCONTINUITY\n" }
        if !openParts.isEmpty, let openProgramDateTime { text += "#EXT-X-PROGRAM-DATE-TIME:\(ProgramDateTime.format(openProgramDateTime))\n" }
        text += Self.lines(of: openParts)
        if let hint { text += hint.render() }
        text += reports.map { $0.render() }.joined()
        return text
    }
}

extension MediaPlaylist {
    /// The playlist as text with its low-latency edge: `render(control:)` with EXT-X-PART-INF
    /// in the header, each listed segment's parts just before its EXTINF (after its date, so the
    /// parts carry it) and the edge's tail after the last entry.
    public func render(control: ServerControl = ServerControl(), edge: LowLatencyEdge?) -> String {
        guard let edge else { return render(control: control) }
        var text = renderHeader(control: control, edge: edge)
        for (offset, segment) in segments.enumerated() {
            text += Self.renderLines(for: segment, parts: edge.listedParts[mediaSequence + offset])
        }
        text += trailingDateRanges.map { $0.render() }.joined()
        text += edge.tail()
        if endList { text += "#EXT-X-ENDLIST\n" }
        return text
    }

    /// The lines of one segment with its parts, if any, before its EXTINF.
    static func renderLines(for segment: MediaSegment, parts: [PartialSegment]?) -> String {
        guard let parts, !parts.isEmpty else { return renderLines(for: segment) }
        let (opening, closing) = renderLineHalves(for: segment)
        return opening + LowLatencyEdge.lines(of: parts) + closing
    }
}
