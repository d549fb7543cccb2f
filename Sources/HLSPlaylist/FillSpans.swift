import Foundation

/// Sideline's fill spans in a recording: the `EXT-X-DATERANGE`s of CLASS stand-in or
/// sibling-fill that say which entries were not the variant's own footage. A span opens with a
/// range without END-DATE on its first entry and closes with the same ID and an END-DATE on
/// the entry after its last. Pure.
enum FillSpans {
    static let fillClasses: Set<String> = [DateRange.standInClass, DateRange.siblingFillClass]

    /// One fill span: the range that opened it and the entries (indices) it covers.
    struct FillSpan {
        var opening: DateRange
        var entries: [Int] = []
        /// Whether a range with its ID and an END-DATE closed it (a stopped process leaves it open).
        var closed = false
    }

    /// Every fill span, in the order they open: from the entry whose range opens it to the one
    /// before the entry carrying its END-DATE. A span left open by a stopped process ends at the
    /// last entry the process wrote before the next EXT-X-DISCONTINUITY that is not a fill's own.
    static func spans(in playlist: MediaPlaylist) -> [FillSpan] {
        var spans: [FillSpan] = []
        var open: [String: Int] = [:]
        for (index, entry) in playlist.segments.enumerated() {
            var openedHere: [String: Int] = [:]
            for range in entry.dateRanges where Self.fillClasses.contains(range.classLabel ?? "") {
                if range.endDate == nil {
                    if let known = open[range.id] ?? openedHere[range.id] {
                        openedHere[range.id] = known
                    } else {
                        spans.append(FillSpan(opening: range))
                        openedHere[range.id] = spans.count - 1
                    }
                } else if let closing = open.removeValue(forKey: range.id) {
                    spans[closing].closed = true
                }
            }
            // Every change of source is a seam: spans still open across one were left open by
            // a process that stopped; only those this entry opens go on.
            if entry.discontinuity { open = openedHere } else { open.merge(openedHere) { kept, _ in kept } }
            for span in Set(open.values) { spans[span].entries.append(index) }
        }
        return spans
    }

    /// The recording's fill spans once late segments took `replaced` entries: a span whose
    /// entries were all replaced is gone (opening and closing ranges); one replaced in part
    /// covers only what is still filled, as one span per run of filled entries (the first keeps
    /// its ID when it starts where the span did; the others are named by their own start). The
    /// footage there is real now, and the metadata says so.
    static func narrow(_ playlist: inout MediaPlaylist, replaced: Set<Int>) {
        // Date ranges change below, never durations or dates.
        let times = PlaylistTimes(playlist)
        for span in spans(in: playlist) where !replaced.isDisjoint(with: span.entries) {
            for index in playlist.segments.indices {
                playlist.segments[index].dateRanges.removeAll { $0.id == span.opening.id && Self.fillClasses.contains($0.classLabel ?? "") }
            }
            let kept = span.entries.filter { !replaced.contains($0) }
            for run in Self.runs(of: kept) {
                guard let first = run.first, let last = run.last, let start = times.programDateTime(ofEntry: first) else { continue }
                var opening = span.opening
                if first != span.entries.first {
                    let stamp = ProgramDateTime.format(span.opening.startDate)
                    let named = span.opening.id.hasSuffix(stamp) ? String(span.opening.id.dropLast(stamp.count)) : span.opening.id + "-"
                    opening.id = named + ProgramDateTime.format(start)
                    opening.startDate = start
                }
                playlist.segments[first].dateRanges.append(opening)
                // Closed on the entry after the run, unless the span was left open and ends here.
                guard last != span.entries.last || span.closed, playlist.segments.indices.contains(last + 1), let end = times.programDateTime(ofEntry: last + 1) else { continue }
                var closing = opening
                closing.endDate = end
                playlist.segments[last + 1].dateRanges.insert(closing, at: 0)
            }
        }
    }

    /// `indices` (ascending) in runs of consecutive ones.
    private static func runs(of indices: [Int]) -> [[Int]] {
        var runs: [[Int]] = []
        for index in indices {
            if let last = runs.last?.last, last + 1 == index { runs[runs.count - 1].append(index) } else { runs.append([index]) }
        }
        return runs
    }
}
