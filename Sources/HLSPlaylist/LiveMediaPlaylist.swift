/// A media playlist that only grows, rendered incrementally: appending a segment appends its
/// lines to the cached text instead of re-rendering every segment, so publishing segment N of
/// a forty-minute event costs the same as publishing segment 1.
public struct LiveMediaPlaylist: Sendable {
    public private(set) var playlist: MediaPlaylist
    /// A counter that changes whenever the rendered text changes.
    public private(set) var version: Int
    private var header: String
    private var body: String

    public init(_ playlist: MediaPlaylist) {
        self.playlist = playlist
        self.version = 0
        self.header = playlist.renderHeader()
        self.body = playlist.segments.map(MediaPlaylist.renderLines(for:)).joined() + playlist.trailingDateRanges.map { $0.render() }.joined()
    }

    /// Appends an entry. Date ranges appended since the last entry (`appendTrailing`) become
    /// the first of its own, as a parser reading the text would attach them.
    public mutating func append(_ segment: MediaSegment) {
        precondition(!playlist.endList, "cannot append to a playlist that has EXT-X-ENDLIST")
        body += MediaPlaylist.renderLines(for: segment)
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

    /// Identical to `playlist.render(control:)`, without the per-segment work.
    public func text(control: ServerControl) -> String {
        guard control.render() != nil else { return text }
        return playlist.renderHeader(control: control) + body + (playlist.endList ? "#EXT-X-ENDLIST\n" : "")
    }
}
