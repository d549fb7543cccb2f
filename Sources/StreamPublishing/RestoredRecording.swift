import Foundation
import HLSPlaylist
import SidelineCore

/// What an earlier process recorded, to continue from.
public struct RestoredRecording: Sendable, Equatable {
    /// Entries every variant lists (they are aligned at start).
    public var entries: Int
    public var timeline: StreamTimeline
    /// EXT-X-PROGRAM-DATE-TIME and EXTINF of the last entry, if it has a date.
    public var lastProgramDateTime: Date?
    public var lastDuration: Double
    /// Entries (indices) of each variant a late segment may still replace
    /// (`MediaPlaylist.replaceableEntries`); only used with `lateSegmentsReplaceFills`.
    public var replaceable: [String: [Int]] = [:]
    /// The recorded playlists' EXT-X-MEDIA-SEQUENCE: entry 0's number (`EdgeLedger`), and each
    /// variant's own where the recording gives it.
    public var firstSequence = 0
    public var variantFirstSequences: [String: Int] = [:]

    public init(entries: Int, timeline: StreamTimeline, lastProgramDateTime: Date?, lastDuration: Double, replaceable: [String: [Int]] = [:],
                firstSequence: Int = 0) {
        self.firstSequence = firstSequence
        self.entries = entries
        self.timeline = timeline
        self.lastProgramDateTime = lastProgramDateTime
        self.lastDuration = lastDuration
        self.replaceable = replaceable
    }

    /// What a recorded playlist's entries say (nil when there are none): the last dated
    /// entry, and the entries after it (GAP entries written without a date) extend its end.
    public init?(recorded entries: [MediaSegment], timeline: StreamTimeline?) {
        guard !entries.isEmpty else { return nil }
        let dated = entries.lastIndex { $0.programDateTime != nil }
        self.init(entries: entries.count, timeline: timeline ?? StreamTimeline(), lastProgramDateTime: dated.flatMap { entries[$0].programDateTime },
                  lastDuration: entries[(dated ?? entries.count - 1)...].reduce(0) { $0 + $1.duration })
    }
}
