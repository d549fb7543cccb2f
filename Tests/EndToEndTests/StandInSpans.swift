import HLSPlaylist

extension MediaPlaylist {
    /// The first entry at or after `index` that is not in a stand-in span opened there: with
    /// discontinuities on seams, a stand-in encoded as the rung is (on its slot's timestamps)
    /// joins untagged, and the change of source is tagged on the entry after the span, which
    /// carries the span's closing DATERANGE. `index` itself when no span opens there; nil
    /// while the span is still open.
    func firstEntryPastStandIns(from index: Int) -> Int? {
        guard segments.indices.contains(index) else { return nil }
        guard segments[index].dateRanges.contains(where: { $0.classLabel == DateRange.standInClass && $0.endDate == nil }) else { return index }
        return segments.indices.first { $0 > index && segments[$0].dateRanges.contains { $0.classLabel == DateRange.standInClass && $0.endDate != nil } }
    }
}
