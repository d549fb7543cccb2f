/// Playlist Delta Updates (draft-pantos-hls-rfc8216bis §6.2.5.1, EXT-X-SKIP §4.4.5.2): a client
/// that already holds the playlist asks with `_HLS_skip=YES` (or `v2`) and gets the same
/// playlist with its older segments replaced by one EXT-X-SKIP tag: a few hundred bytes
/// however long the stream has run (Docs/benchmarks.md, "Serving", has the sizes).
extension MediaPlaylist {
    /// How many leading entries a delta update may skip: those that end at least `boundary`
    /// seconds before the end of the playlist (the draft's skip boundary). Entries closer to
    /// the end than that are always sent.
    public func skippableCount(boundary: Double) -> Int {
        var tail = 0.0
        var index = segments.count
        // Walk back from the end until the kept entries cover the boundary; everything before
        // them ends at or before (total - boundary).
        while index > 0, tail < boundary {
            index -= 1
            tail += segments[index].duration
        }
        return tail < boundary ? 0 : index
    }

    /// The delta form of this playlist, as `control` advertises it, for a client that asked
    /// with `_HLS_skip=YES` (`skippingDateRanges` false) or `_HLS_skip=v2` (true). Nil when
    /// nothing can be skipped yet (the client then gets the full playlist) or when `control`
    /// offers no delta updates.
    ///
    /// - The header is the full playlist's, with EXT-X-VERSION raised to 9 (EXT-X-SKIP) or 10
    ///   (RECENTLY-REMOVED-DATERANGES), as §7 requires.
    /// - With `YES`, the skipped entries' EXT-X-DATERANGE tags are still sent (the draft makes
    ///   them Media Metadata tags, which EXT-X-SKIP does not replace), just after EXT-X-SKIP.
    /// - With `v2`, they are left out too; an EVENT playlist never removes a date range, so
    ///   RECENTLY-REMOVED-DATERANGES is always empty.
    ///
    /// With `edge` (Low-Latency HLS), the kept segments carry their parts and the edge's tail
    /// follows, as in the full playlist: a delta differs from it only in what it skips.
    public func renderDelta(control: ServerControl, skippingDateRanges: Bool, edge: LowLatencyEdge? = nil) -> String? {
        guard let boundary = control.canSkipUntil else { return nil }
        let skipDateRanges = skippingDateRanges && control.canSkipDateRanges
        let skipped = skippableCount(boundary: boundary)
        guard skipped > 0 else { return nil }
        var header = self
        header.version = max(version, skipDateRanges ? 10 : 9)
        var text = header.renderHeader(control: control, edge: edge)
        text += "#EXT-X-SKIP:SKIPPED-SEGMENTS=\(skipped)"
        text += skipDateRanges ? ",RECENTLY-REMOVED-DATERANGES=\"\"\n" : "\n"
        if !skipDateRanges {
            for segment in segments[..<skipped] where !segment.dateRanges.isEmpty {
                text += segment.dateRanges.map { $0.render() }.joined()
            }
        }
        for (offset, segment) in segments.enumerated().dropFirst(skipped) {
            text += Self.renderLines(for: segment, parts: edge?.listedParts[mediaSequence + offset])
        }
        text += trailingDateRanges.map { $0.render() }.joined()
        if let edge { text += edge.tail() }
        if endList { text += "#EXT-X-ENDLIST\n" }
        return text
    }
}
