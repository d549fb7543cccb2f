/// A media playlist that only grows, rendered incrementally: appending a segment appends its
/// lines to the cached text instead of re-rendering every segment, so publishing segment N of
/// a forty-minute event costs the same as publishing segment 1.
public struct LiveMediaPlaylist: Sendable {
    public private(set) var playlist: MediaPlaylist
    /// A counter that changes whenever the rendered text changes.
    public private(set) var version: Int
    private var header: String
    private var body: String
    /// Where each entry's EXTINF line starts in `body` (UTF-8 offsets): where a low-latency
    /// playlist lists that entry's parts (`text(control:edge:)`).
    private var extinfOffsets: [Int] = []

    public init(_ playlist: MediaPlaylist) {
        self.playlist = playlist
        self.version = 0
        self.header = playlist.renderHeader()
        self.body = ""
        extinfOffsets.reserveCapacity(playlist.segments.count)
        for segment in playlist.segments { appendLines(of: segment) }
        body += playlist.trailingDateRanges.map { $0.render() }.joined()
    }

    private mutating func appendLines(of segment: MediaSegment) {
        let (opening, closing) = MediaPlaylist.renderLineHalves(for: segment)
        body += opening
        extinfOffsets.append(body.utf8.count)
        body += closing
    }

    /// Appends an entry. Date ranges appended since the last entry (`appendTrailing`) become
    /// the first of its own, as a parser reading the text would attach them.
    public mutating func append(_ segment: MediaSegment) {
        precondition(!playlist.endList, "cannot append to a playlist that has EXT-X-ENDLIST")
        appendLines(of: segment)
        var segment = segment
        segment.dateRanges = playlist.trailingDateRanges + segment.dateRanges
        playlist.trailingDateRanges = []
        playlist.segments.append(segment)
        version += 1
    }

    /// Appends a date range after the last entry (a replacement in the recording, which must
    /// not wait for the next entry to be on disk).
    public mutating func appendTrailing(_ dateRange: DateRange) {
        precondition(!playlist.endList, "cannot append to a playlist that has EXT-X-ENDLIST")
        playlist.trailingDateRanges.append(dateRange)
        body += dateRange.render()
        version += 1
    }

    public mutating func end() {
        guard !playlist.endList else { return }
        playlist.endList = true
        version += 1
    }

    /// Identical to `playlist.render()`, without the per-segment work.
    public var text: String {
        header + body + (playlist.endList ? "#EXT-X-ENDLIST\n" : "")
    }

    /// Identical to `playlist.render(control:edge:)`, without the per-segment work: the text up
    /// to each parted entry's EXTINF is copied as it is, with the parts put in between.
    public func text(control: ServerControl, edge: LowLatencyEdge) -> String {
        var text = playlist.renderHeader(control: control, edge: edge)
        let utf8 = body.utf8
        var from = utf8.startIndex
        for (sequence, parts) in edge.listedParts.sorted(by: { $0.key < $1.key }) where !parts.isEmpty {
            let entry = sequence - playlist.mediaSequence
            guard entry >= 0, entry < extinfOffsets.count else { continue }
            let at = utf8.index(utf8.startIndex, offsetBy: extinfOffsets[entry])
            guard at >= from else { continue }
            text += body[from..<at]
            text += LowLatencyEdge.lines(of: parts)
            from = at
        }
        text += body[from...]
        text += edge.tail()
        if playlist.endList { text += "#EXT-X-ENDLIST\n" }
        return text
    }

    /// Identical to `playlist.render(control:)`, without the per-segment work.
    public func text(control: ServerControl) -> String {
        guard control.render() != nil else { return text }
        return playlist.renderHeader(control: control) + body + (playlist.endList ? "#EXT-X-ENDLIST\n" : "")
    }
}
