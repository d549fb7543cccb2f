import Foundation
import HLSPlaylist
import SidelineCore

/// The one timeline every angle of a set runs on: slot k covers the wall-clock span
/// [epoch + k x D, epoch + (k + 1) x D). Every angle lists slot k as its entry k (one media
/// sequence number per slot), dates it `start(of: k)` exactly, and gives the frame that
/// reached the server at instant t the output time t - epoch (its presentation timestamp), so
/// the same moment has the same slot, date and timestamp in every angle, whenever each camera
/// started. Kept with the set (`<data_dir>/<set>/set-timeline.json`) so a restarted server
/// continues it. Its slots are a `SlotGrid`'s (SidelineCore): a new set begins by its epoch
/// rule (`starting(at:)`), any camera pushed from elsewhere that numbers its slots the same way
/// included. Pure.
public struct SetTimeline: SlotGrid, Sendable, Equatable, Codable {
    public var epoch: Date
    public var segmentDuration: Double

    public init(epoch: Date, segmentDuration: Double) {
        precondition(segmentDuration > 0)
        self.epoch = epoch
        self.segmentDuration = segmentDuration
    }

    /// On disk: the epoch in Unix milliseconds (exact) and as a date-time (for a person), and D.
    enum CodingKeys: String, CodingKey {
        case epochUnixMilliseconds = "epoch_unix_ms", epoch, segmentDuration = "segment_duration"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let milliseconds = try container.decode(Int64.self, forKey: .epochUnixMilliseconds)
        let duration = try container.decode(Double.self, forKey: .segmentDuration)
        guard duration > 0, duration.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: .segmentDuration, in: container, debugDescription: "segment_duration must be above 0")
        }
        self.init(epoch: Date(timeIntervalSince1970: Double(milliseconds) / 1000), segmentDuration: duration)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Int64((epoch.timeIntervalSince1970 * 1000).rounded()), forKey: .epochUnixMilliseconds)
        try container.encode(ProgramDateTime.format(epoch), forKey: .epoch)
        try container.encode(segmentDuration, forKey: .segmentDuration)
    }

    /// Seconds from the epoch to `instant`: the output time of a frame that reached the server then.
    public func outputTime(of instant: Date) -> Double { instant.timeIntervalSince(epoch) }

    /// The slot the entry dated `programDateTime` is on this grid, when it is on it (within
    /// `tolerance` seconds of a slot's start); nil when it is not (a recording made before its
    /// stream joined the set, on a grid of its own).
    public func slot(dated programDateTime: Date, tolerance: Double = 0.1) -> Int? {
        guard let nearest = nearestSlot(to: programDateTime), abs(nearest.offset) <= tolerance else { return nil }
        return nearest.slot
    }

    /// The set timeline a recording dated this way already runs on: slot `slot` dated
    /// `programDateTime` (a stream with a recording that becomes an angle of a new set keeps
    /// its numbering, so its entries stay where they are).
    public static func continuing(slot: Int, dated programDateTime: Date, segmentDuration: Double) -> SetTimeline {
        SetTimeline(epoch: programDateTime.addingTimeInterval(-Double(slot) * segmentDuration), segmentDuration: segmentDuration)
    }

    /// Which timeline a set runs on when its first angle starts in this process: the one `kept`
    /// with the set while some angle still has a recording (`recorded`: the last dated entry of
    /// each angle that has one, default angle first) and it has this segment duration; else one
    /// that continues the first recording (a stream that joins a new set keeps its numbering);
    /// else a new one starting `now`. `isNew`: it must be written down.
    public static func choose(kept: SetTimeline?, recorded: [(slot: Int, date: Date)], segmentDuration: Double, now: Date) -> (timeline: SetTimeline, isNew: Bool) {
        if let kept, kept.segmentDuration == segmentDuration, !recorded.isEmpty { return (kept, false) }
        if let first = recorded.first { return (continuing(slot: first.slot, dated: first.date, segmentDuration: segmentDuration), true) }
        return (starting(at: now, segmentDuration: segmentDuration), true)
    }

    /// The slot and date of a recording's last dated entry (nil when none is dated).
    public static func lastDated(_ entries: [MediaSegment], timeline: StreamTimeline) -> (slot: Int, date: Date)? {
        guard let index = entries.lastIndex(where: { $0.programDateTime != nil }), let date = entries[index].programDateTime else { return nil }
        return (timeline.slot(ofEntry: index), date)
    }

    /// Whether a recording lies on this grid: its last dated entry is dated its slot's start
    /// (a recording with no date has nothing to disagree with).
    public func holds(_ entries: [MediaSegment], timeline: StreamTimeline) -> Bool {
        guard let last = Self.lastDated(entries, timeline: timeline) else { return true }
        return slot(dated: last.date, tolerance: 0.05) == last.slot
    }

    /// At most this long a restarted server (or an angle that joins a set late) lists as
    /// EXT-X-GAP entries to keep its entries on the set's slots: five minutes. Each entry
    /// rewrites (and syncs) the variant's playlist, so a long absence would hold up the start
    /// (10 minutes at D = 2 are 300 rewrites per variant). After a longer absence the angle's
    /// next entry skips ahead (a new run of its timeline): its slots, dates and timestamps stay
    /// the set's; its media sequence numbers equal its siblings' only if they had listed as many
    /// entries when the server stopped.
    public static let maximumGapSeconds: Double = 5 * 60

    /// How many GAP entries keep this grid's slots before a skip: five minutes' worth, and no
    /// limit on the universal grid, where entry n must be slot n on every box whatever was
    /// missed (the GAP entries of a long absence are written in one go: `PublishingEffect.listGaps`).
    public var maximumGapSlots: Int { isUniversal ? .max : Int(Self.maximumGapSeconds / segmentDuration) }

    /// The one timeline of every box with `redundancy` (issue 35), for every stream, in a set
    /// or not: slot k is [k x D, (k + 1) x D) seconds of UTC since 1970, its media sequence
    /// number is k, its EXT-X-PROGRAM-DATE-TIME the slot's start, and a frame that reached the
    /// server at instant t has the output time t - 1970 (wrapped to 33 bits in MPEG-TS, as
    /// every long-running broadcast wraps). Two boxes derive all of it from their configs and
    /// their clocks alone, whenever each started or restarted, so a player moved from one to
    /// the other finds the same moment under the same number.
    public static func universal(segmentDuration: Double) -> SetTimeline {
        SetTimeline(epoch: Date(timeIntervalSince1970: 0), segmentDuration: segmentDuration)
    }

    /// Whether this is the universal grid (`universal(segmentDuration:)`).
    public var isUniversal: Bool { epoch.timeIntervalSince1970 == 0 }

    /// The longest absence the universal grid lists as GAP entries when a recording is
    /// continued: a day (43,200 entries at D = 2 s). A week would be 302,400, at 92 bytes a
    /// rendered GAP entry about 28 MB of playlist every reload and every segment's write carries; HLS cannot skip numbers inside
    /// a playlist, so past this a new recording begins instead (the old one kept aside).
    public static let longestListedAbsence: Double = 24 * 3600

    /// Why a recording (`entries`, numbered from `mediaSequence`) cannot be continued on the
    /// universal grid at `now` (nil: it can): numbered off the grid (made before `redundancy`
    /// was set: its numbers cannot change, players hold them); last dated longer than
    /// `longestListedAbsence` ago; or dated after `now` (this box's clock is behind the one
    /// that recorded it).
    public func reasonNotToContinue(_ entries: [MediaSegment], mediaSequence: Int, now: Date) -> String? {
        guard isUniversal, let index = entries.lastIndex(where: { $0.programDateTime != nil }), let date = entries[index].programDateTime else { return nil }
        let sequence = mediaSequence + index
        guard slot(dated: date, tolerance: 0.05) == sequence else {
            return "its entries are not numbered by the universal grid (entry \(sequence) is dated \(ProgramDateTime.format(date))): it was recorded before `redundancy` was set"
        }
        let end = date.addingTimeInterval(entries[index...].reduce(0) { $0 + $1.duration })
        if now.timeIntervalSince(end) > Self.longestListedAbsence {
            return "it ends \(ProgramDateTime.format(end)), more than a day ago: its missed slots would be too many GAP entries"
        }
        if end.timeIntervalSince(now) > segmentDuration {
            return "it ends \(ProgramDateTime.format(end)), after this box's clock (\(ProgramDateTime.format(now))): check the clock (NTP)"
        }
        return nil
    }

    /// Whether `now` can be the time on a box of a redundant pair: its segments are numbered
    /// and dated by it, so a clock still at its epoch before NTP set it (1970, or an RTC that
    /// lost its battery) would number a recording that no peer agrees with. Not before 2025 and
    /// not after 2200.
    public static func isPlausibleClock(_ now: Date) -> Bool {
        (1_735_689_600...7_258_118_400).contains(now.timeIntervalSince1970)
    }
}
