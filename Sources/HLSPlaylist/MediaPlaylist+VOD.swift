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

    /// The VOD rendition of the entries that cover `window`: every entry that overlaps it,
    /// so the clip starts at or before the asked start (entries start with a keyframe) and ends
    /// at or after the asked end. Media and discontinuity sequence numbers count what was left
    /// out before the window, so windows of the ladder's variants stay aligned.
    public func vodRendition(covering window: TimeWindow) -> Result<MediaPlaylist, TimeWindow.Rejection> {
        PlaylistTimes(self).resolve(window).map { span in
            var vod = vodRendition
            vod.mediaSequence = mediaSequence + span.entries.lowerBound
            vod.discontinuitySequence = discontinuitySequence + segments[..<span.entries.lowerBound].filter(\.discontinuity).count
            vod.segments = Array(segments[span.entries])
            return vod
        }
    }
}
