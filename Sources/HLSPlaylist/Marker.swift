import Foundation

/// An analyst's mark on a play: a moment of the recording (a program date-time), a label, and
/// optionally how long the play lasts, who marked it and a colour for the page. Every variant's
/// playlist carries it as an `EXT-X-DATERANGE` of Sideline's own CLASS with `X-` attributes for
/// the rest (RFC 8216 §4.3.2.7), so any HLS tool can find it; it is kept with the recording
/// (`markers.json`) and survives a restart.
public struct Marker: Sendable, Equatable, Codable {
    /// Unique within its stream; the DATERANGE's ID.
    public var id: String
    public var label: String
    /// Where the play starts: the DATERANGE's START-DATE.
    public var time: Date
    /// Seconds the play lasts: the DATERANGE's DURATION.
    public var duration: Double?
    public var author: String?
    /// `#rrggbb`, for the page.
    public var colour: String?
    /// When the marker was added (server clock).
    public var created: Date
    /// The media sequence number of the first entry none of whose lines were published when the
    /// marker was added (the next entry, or the one after it while the next one's parts are
    /// out): its DATERANGE goes just before that entry in the live playlists, so an EVENT
    /// playlist only ever has lines appended (RFC 8216 §6.2.1), however far back the marked
    /// moment lies.
    public var listedBefore: Int

    public init(id: String, label: String, time: Date, duration: Double? = nil, author: String? = nil, colour: String? = nil, created: Date,
                listedBefore: Int) {
        self.id = id
        self.label = label
        self.time = time
        self.duration = duration
        self.author = author
        self.colour = colour
        self.created = created
        self.listedBefore = listedBefore
    }

    /// The CLASS of a marker's DATERANGE.
    public static let dateRangeClass = "com.sideline.marker"
    /// The ranges an entry's markers go after: those that were trailing with them.
    static let leading: Set<String?> = [SegmentReplacement.dateRangeClass, dateRangeClass]

    public var dateRange: DateRange {
        var attributes = ["X-LABEL": label]
        if let author { attributes["X-AUTHOR"] = author }
        if let colour { attributes["X-COLOUR"] = colour }
        return DateRange(id: id, classLabel: Self.dateRangeClass, startDate: time, duration: duration, clientAttributes: attributes)
    }
}

extension MediaPlaylist {
    /// A live playlist with `markers` in it, which only appends to what a player has read: each
    /// DATERANGE just before the entry it was added ahead of (`Marker.listedBefore`), after the
    /// ranges trailing with it and before the entry's own; after the last entry while that one
    /// is unpublished; not yet for an entry beyond (the next one's parts were out).
    public func placingLive(_ markers: [Marker]) -> MediaPlaylist {
        var placed = self
        for marker in markers {
            let index = max(0, marker.listedBefore - mediaSequence)
            if index < placed.segments.count {
                placed.segments[index].dateRanges.insert(marker.dateRange, at: placed.segments[index].dateRanges.prefix { Marker.leading.contains($0.classLabel) }.count)
            } else if index == placed.segments.count {
                placed.trailingDateRanges.append(marker.dateRange)
            }
        }
        return placed
    }

    /// A recording with `markers` placed where the moment they mark lies: just before the entry
    /// whose wall-clock span holds the marker's time (the first entry for a time before the
    /// recording, the last after it). A VOD playlist never changes, so placement by time is
    /// free to insert, and a time window (`vodRendition(covering:)`) keeps exactly the markers
    /// of the entries it keeps.
    public func placingByTime(_ markers: [Marker]) -> MediaPlaylist {
        guard !segments.isEmpty else { return self }
        var placed = self
        let times = PlaylistTimes(self).entries
        for marker in markers.sorted(by: { $0.time < $1.time }) {
            let index = times.lastIndex { $0.date.map { $0 <= marker.time } ?? false } ?? 0
            placed.segments[index].dateRanges.append(marker.dateRange)
        }
        return placed
    }
}
