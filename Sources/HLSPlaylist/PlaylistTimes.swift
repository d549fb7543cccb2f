import Foundation

/// Where a playlist's entries lie in time, worked out once: each entry's start and end in
/// seconds from the first entry, and its wall-clock start (its EXT-X-PROGRAM-DATE-TIME, or
/// carried on from the last dated entry before it). What asks a position of a recording (a
/// date's offset, a window's entries, the span its dates cover, an entry's date) asks this, so
/// several questions walk the entries once.
public struct PlaylistTimes: Sendable {
    public struct Entry: Sendable, Equatable {
        public let start: Double
        public let end: Double
        public let date: Date?
    }

    public let entries: [Entry]

    public init(_ playlist: MediaPlaylist) {
        var offset = 0.0
        var date: Date?
        entries = playlist.segments.map { segment in
            if let stated = segment.programDateTime { date = stated }
            defer {
                offset += segment.duration
                date = date.map { $0.addingTimeInterval(segment.duration) }
            }
            return Entry(start: offset, end: offset + segment.duration, date: date)
        }
    }

    /// Entry `index`'s wall-clock start; nil when no entry up to it is dated.
    public func programDateTime(ofEntry index: Int) -> Date? {
        entries.indices.contains(index) ? entries[index].date : nil
    }

    /// Seconds from the start of the recording to `date`, by the entries' program date-times;
    /// nil when no entry has one. For the page, which seeks its player there.
    public func offset(of date: Date) -> Double? {
        guard let entry = entries.last(where: { $0.date.map { $0 <= date } ?? false }) ?? entries.first(where: { $0.date != nil }),
              let entryDate = entry.date else { return nil }
        return entry.start + date.timeIntervalSince(entryDate)
    }

    /// The wall-clock span the entries cover: from the first entry's date to the last entry's
    /// end. Nil when no entry has a program date-time.
    public var dateSpan: ClosedRange<Date>? {
        guard let first = entries.first(where: { $0.date != nil }), let firstDate = first.date,
              let last = entries.last, let lastDate = last.date else { return nil }
        let start = firstDate.addingTimeInterval(-first.start)
        let end = lastDate.addingTimeInterval(last.end - last.start)
        // Dates a pusher or an upstream wrote may go back: the span is still a range, not a trap.
        return min(start, end)...max(start, end)
    }

    /// The entries that cover `window`, or why none can (which parameter, and what is wrong).
    public func resolve(_ window: TimeWindow) -> Result<WindowSpan, TimeWindow.Rejection> {
        guard let first = entries.first, let last = entries.last else {
            return .failure(TimeWindow.Rejection(message: "the recording has no entries yet"))
        }
        // Everything in media seconds from the first entry; a date is placed by the entries' dates.
        func seconds(_ bound: TimeWindow.Bound) -> Double? {
            switch bound {
            case let .offset(value): value
            case let .date(date): offset(of: date)
            }
        }
        let start = window.start.map(seconds) ?? 0
        let end = window.end.map(seconds) ?? last.end
        guard let start, let end else {
            return .failure(TimeWindow.Rejection(message: "the recording has no program date-times; give start and end in seconds"))
        }
        guard start < last.end, end > first.start else {
            return .failure(TimeWindow.Rejection(message: "the window lies outside the recording, which runs from \(describe(0)) to \(describe(last.end))"))
        }
        if end <= start {
            return .failure(TimeWindow.Rejection(message: "end must be after start (start is \(describe(start)), end is \(describe(end)))"))
        }
        let indices = entries.indices.filter { entries[$0].end > start && entries[$0].start < end }
        guard let from = indices.first, let to = indices.last else {
            return .failure(TimeWindow.Rejection(message: "no entry covers the window"))
        }
        let origin = entries[from].start
        let startDate = entries[from].date.map { $0.addingTimeInterval(max(start, origin) - origin) }
        return .success(WindowSpan(entries: from...to, start: max(0, start - origin), end: min(end, entries[to].end) - origin, startDate: startDate))
    }

    /// A media time as a person reads it: seconds, and the program date-time when known.
    private func describe(_ seconds: Double) -> String {
        let text = "\(DecimalFormat.fixed(seconds, places: 3)) s"
        guard let entry = entries.last(where: { $0.start <= seconds }) ?? entries.first, let date = entry.date else { return text }
        return text + " (" + ProgramDateTime.format(date.addingTimeInterval(seconds - entry.start)) + ")"
    }
}

/// Where a window lies in a playlist (`PlaylistTimes.resolve`): the entries that overlap it,
/// and the asked start and end in seconds from the first of those entries (the start may fall
/// inside it).
public struct WindowSpan: Sendable, Equatable {
    /// Indices into the playlist's `segments`.
    public let entries: ClosedRange<Int>
    public let start: Double
    public let end: Double
    /// The wall-clock time of the asked start, when the entries have program date-times.
    public let startDate: Date?
}
