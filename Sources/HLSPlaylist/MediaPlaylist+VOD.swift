import Foundation

/// A stretch of a recording, asked for by program date-time (ISO 8601, as in
/// EXT-X-PROGRAM-DATE-TIME) or by seconds from the start of the recording. Either end may be
/// open: from the start, or to the newest entry.
public struct TimeWindow: Sendable, Equatable {
    public enum Bound: Sendable, Equatable {
        case date(Date)
        /// Seconds of media from the first entry of the recording.
        case offset(Double)
    }

    public var start: Bound?
    public var end: Bound?

    public init(start: Bound? = nil, end: Bound? = nil) {
        self.start = start
        self.end = end
    }

    /// Why a window cannot be served: which parameter, and what is wrong with it.
    public struct Rejection: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// The window as a query (`start=...&end=...`; "" for the whole recording), rendered from
    /// the parsed bounds, never from the text a client sent: a master passes it on to every
    /// variant URI and into its entity tag, so nothing a client wrote reaches a playlist line
    /// (issue 33: a second `start=` used to be copied through unchecked, a '"' in it closing
    /// a `URI="..."` attribute). Seconds keep microseconds, without trailing zeros; dates are EXT-X-PROGRAM-DATE-TIME's
    /// form (milliseconds, UTC).
    public var query: String {
        func text(_ bound: Bound) -> String {
            switch bound {
            case let .offset(seconds):
                // Microseconds, without trailing zeros: "4", "2.5".
                String(DecimalFormat.fixed(seconds, places: 6).reversed().drop { $0 == "0" }.drop { $0 == "." }.reversed())
            case let .date(date): ProgramDateTime.format(date)
            }
        }
        return [start.map { "start=" + text($0) }, end.map { "end=" + text($0) }].compactMap { $0 }.joined(separator: "&")
    }

    /// The window its `query` reads back as: what the content is cut by, so that two windows
    /// with one query (and so one entity tag) are one window (bounds past microseconds, or
    /// milliseconds of a date, are rounded as the query renders them).
    public var canonical: TimeWindow {
        func value(_ name: String) -> String? {
            query.split(separator: "&").first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
        }
        return (try? TimeWindow.parse(start: value("start"), end: value("end")).get()) ?? self
    }

    /// Reads `start` and `end` as given in a query (nil when absent).
    public static func parse(start: String?, end: String?) -> Result<TimeWindow, Rejection> {
        func bound(_ text: String?, named name: String) -> Result<Bound?, Rejection> {
            guard let text, !text.isEmpty else { return .success(nil) }
            if let seconds = Double(text), seconds.isFinite {
                guard seconds >= 0 else { return .failure(Rejection(message: "\(name) must not be negative (seconds from the start of the recording), not \(text)")) }
                return .success(.offset(seconds))
            }
            if let date = ProgramDateTime.parse(Substring(text)) { return .success(.date(date)) }
            return .failure(Rejection(message: "\(name) must be a program date-time (2026-11-21T15:04:05.000Z) or seconds from the start of the recording, not '\(text)'"))
        }
        let from = bound(start, named: "start")
        let to = bound(end, named: "end")
        switch (from, to) {
        case let (.failure(rejection), _), let (_, .failure(rejection)): return .failure(rejection)
        case let (.success(first), .success(last)): return .success(TimeWindow(start: first, end: last))
        }
    }
}

extension MediaPlaylist {
    /// The recording so far as video on demand (RFC 8216 §4.3.3.5): the same entries (URIs,
    /// durations, discontinuities, dates, date ranges, gaps), `EXT-X-PLAYLIST-TYPE:VOD` and
    /// `EXT-X-ENDLIST`, which a downloader (AVAssetDownloadTask, `ffmpeg -c copy`) accepts
    /// where it refuses a live EVENT playlist.
    public var vodRendition: MediaPlaylist {
        var vod = self
        vod.playlistType = .vod
        vod.endList = true
        return vod
    }

    /// Where each entry starts and ends, in seconds from the first entry and as wall-clock
    /// time (its EXT-X-PROGRAM-DATE-TIME, or carried on from the entry before when it has none).
    struct EntryTimes {
        let start: Double
        let end: Double
        let date: Date?
    }

    func entryTimes() -> [EntryTimes] {
        var offset = 0.0
        var date: Date?
        return segments.map { segment in
            if let stated = segment.programDateTime { date = stated }
            defer {
                offset += segment.duration
                date = date.map { $0.addingTimeInterval(segment.duration) }
            }
            return EntryTimes(start: offset, end: offset + segment.duration, date: date)
        }
    }

    /// Entry `index`'s wall-clock start: its EXT-X-PROGRAM-DATE-TIME, or carried on from the
    /// last dated entry before it (as `entryTimes` does); nil when none before it is dated.
    public func programDateTime(ofEntry index: Int) -> Date? {
        guard segments.indices.contains(index) else { return nil }
        if let stated = segments[index].programDateTime { return stated }
        guard let dated = segments[..<index].lastIndex(where: { $0.programDateTime != nil }) else { return nil }
        return segments[dated].programDateTime!.addingTimeInterval(segments[dated..<index].reduce(0) { $0 + $1.duration })
    }

    /// The VOD rendition of the entries that cover `window`: every entry that overlaps it,
    /// so the clip starts at or before the asked start (entries start with a keyframe) and ends
    /// at or after the asked end. Media and discontinuity sequence numbers count what was left
    /// out before the window, so windows of the ladder's variants stay aligned.
    public func vodRendition(covering window: TimeWindow) -> Result<MediaPlaylist, TimeWindow.Rejection> {
        resolve(window).map { span in
            var vod = vodRendition
            vod.mediaSequence = mediaSequence + span.entries.lowerBound
            vod.discontinuitySequence = discontinuitySequence + segments[..<span.entries.lowerBound].filter(\.discontinuity).count
            vod.segments = Array(segments[span.entries])
            return vod
        }
    }

    /// Where a window lies in this playlist: the entries that overlap it, and the asked start
    /// and end in seconds from the first of those entries (the start may fall inside it).
    public struct WindowSpan: Sendable, Equatable {
        /// Indices into `segments`.
        public let entries: ClosedRange<Int>
        public let start: Double
        public let end: Double
        /// The wall-clock time of the asked start, when the entries have program date-times.
        public let startDate: Date?
    }

    /// The entries that cover `window`, or why none can (which parameter, and what is wrong).
    public func resolve(_ window: TimeWindow) -> Result<WindowSpan, TimeWindow.Rejection> {
        let times = entryTimes()
        guard let first = times.first, let last = times.last else {
            return .failure(TimeWindow.Rejection(message: "the recording has no entries yet"))
        }
        // Everything in media seconds from the first entry; a date is placed by the entries' dates.
        func seconds(_ bound: TimeWindow.Bound) -> Double? {
            switch bound {
            case let .offset(value):
                return value
            case let .date(date):
                return offset(of: date)
            }
        }
        let start = window.start.map(seconds) ?? 0
        let end = window.end.map(seconds) ?? last.end
        guard let start, let end else {
            return .failure(TimeWindow.Rejection(message: "the recording has no program date-times; give start and end in seconds"))
        }
        guard start < last.end, end > first.start else {
            return .failure(TimeWindow.Rejection(message: "the window lies outside the recording, which runs from \(Self.describe(0, times)) to \(Self.describe(last.end, times))"))
        }
        if end <= start {
            return .failure(TimeWindow.Rejection(message: "end must be after start (start is \(Self.describe(start, times)), end is \(Self.describe(end, times)))"))
        }
        let indices = times.indices.filter { times[$0].end > start && times[$0].start < end }
        guard let from = indices.first, let to = indices.last else {
            return .failure(TimeWindow.Rejection(message: "no entry covers the window"))
        }
        let origin = times[from].start
        let startDate = times[from].date.map { $0.addingTimeInterval(max(start, origin) - origin) }
        return .success(WindowSpan(entries: from...to, start: max(0, start - origin), end: min(end, times[to].end) - origin, startDate: startDate))
    }

    /// A media time as a person reads it: seconds, and the program date-time when known.
    private static func describe(_ seconds: Double, _ times: [EntryTimes]) -> String {
        let text = "\(DecimalFormat.fixed(seconds, places: 3)) s"
        guard let entry = times.last(where: { $0.start <= seconds }) ?? times.first, let date = entry.date else { return text }
        return text + " (" + ProgramDateTime.format(date.addingTimeInterval(seconds - entry.start)) + ")"
    }
}
