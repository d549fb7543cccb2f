import Foundation

extension MediaPlaylist {
    /// The playlist as text, one tag a line, ending with a newline; with `control`'s
    /// EXT-X-SERVER-CONTROL when it offers anything (the origin's live playlists).
    public func render(control: ServerControl = ServerControl()) -> String {
        var text = renderHeader(control: control)
        for segment in segments {
            text += Self.renderLines(for: segment)
        }
        text += trailingDateRanges.map { $0.render() }.joined()
        if endList { text += "#EXT-X-ENDLIST\n" }
        return text
    }

    /// Everything before the first segment. EXT-X-SERVER-CONTROL, when `control` offers
    /// anything, comes just after `#EXTM3U`, in the full playlist and its delta updates alike.
    public func renderHeader(control: ServerControl = ServerControl(), edge: LowLatencyEdge? = nil) -> String {
        var text = "#EXTM3U\n" + (control.render() ?? "") + "#EXT-X-VERSION:\(version)\n#EXT-X-TARGETDURATION:\(targetDuration)\n"
        if let edge { text += edge.headerLine() }
        text += "#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)\n"
        if discontinuitySequence != 0 { text += "#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)\n" }
        if let playlistType { text += "#EXT-X-PLAYLIST-TYPE:\(playlistType.rawValue)\n" }
        if independentSegments { text += "#EXT-X-INDEPENDENT-SEGMENTS\n" }
        if iFramesOnly { text += "#EXT-X-I-FRAMES-ONLY\n" }
        return text
    }

    /// The lines of one segment. EXTINF carries microseconds: the real duration, not a rounded
    /// one (§4.3.2.1 allows decimal-floating-point from version 3).
    public static func renderLines(for segment: MediaSegment) -> String {
        let (opening, closing) = renderLineHalves(for: segment)
        return opening + closing
    }

    /// A segment's lines in two: what comes before its EXTINF (date ranges, discontinuity,
    /// date) and from its EXTINF on. A low-latency playlist lists the segment's parts between
    /// the two (`LowLatencyEdge`).
    static func renderLineHalves(for segment: MediaSegment) -> (opening: String, closing: String) {
        var opening = segment.dateRanges.map { $0.render() }.joined()
        if segment.discontinuity { opening += "#EXT-X-DISCONTINUITY\n" }
        if let date = segment.programDateTime { opening += "#EXT-X-PROGRAM-DATE-TIME:\(ProgramDateTime.format(date))\n" }
        var closing = "#EXTINF:\(DecimalFormat.fixed(segment.duration, places: 6)),\n"
        if let range = segment.byteRange { closing += "#EXT-X-BYTERANGE:\(range.length)@\(range.offset)\n" }
        if segment.gap { closing += "#EXT-X-GAP\n" }
        closing += segment.uri + "\n"
        return (opening, closing)
    }
}
