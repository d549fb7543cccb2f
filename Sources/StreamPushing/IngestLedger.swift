import Foundation
import HLSPlaylist
import MPEGTS
import SidelineCore

/// What the server makes of a pushed stream's uploads (`/ingest/{stream}/...`), over plain
/// values: which received segments each uploaded media playlist makes ready to list, in which
/// timeline slot, with which timestamps and program date-time. Pure; the caller writes the
/// files and hands the listings to the stream's publishing core, which decides, as for a camera,
/// whether the slot is still open.
///
/// An encoder pushes the way ffmpeg's HLS muxer does (`-f hls -method PUT`): each segment, then
/// the media playlist that lists it. A segment is only *received* (checked, kept, not listed)
/// until a playlist lists it, so players never see a segment the encoder has not announced, and
/// a playlist that names a segment the server does not hold is refused whole (the last good
/// one stays in force).
///
/// **Sessions.** A run of the remote encoder is a session: its first listed segment takes the
/// slot the publishing core gives it (`sessionSlot`, from the same call a camera's pipeline run
/// makes), and every later segment of the session the slot its media sequence number says,
/// so a segment that arrives late, or is retried, lands where it belongs on the timeline. Its
/// timestamps are moved by one shift for the whole session, so they continue the stream's
/// timeline (never going back) while keeping the encoder's own spacing. An encoder that starts
/// again (a playlist whose last sequence number is below one already listed, a segment listed
/// under another name, or a listed segment sent again with other timestamps) begins a new
/// session; the stream's other variants join it as they start again too.
///
/// **EXT-X-GAP** in a pushed playlist means "not sent yet" (`sideline push` going live first
/// with a backlog behind): such an entry is skipped, and listed when a later playlist names it
/// without the tag.
public struct IngestLedger: Sendable {
    public struct Settings: Sendable {
        /// The stream's variants (the ladder of its config entry): what may be pushed.
        public var variants: [String]
        /// The stream's segment duration: a pushed segment may be at most half as long again.
        public var segmentDuration: Double
        /// Where slot k starts on the stream's timeline, in seconds (`SegmentClock.startTime`).
        public var slotStart: @Sendable (Int) -> Double
        /// The first PTS of slot 0 on the stream's timeline, in 90 kHz ticks (the muxer's delay).
        public var timestampOrigin: Int64
        /// An angle of a set: the set's epoch (slot 0's start, output time 0). A session is then
        /// placed by its first segment's EXT-X-PROGRAM-DATE-TIME: in the slot that date falls
        /// nearest, its first frame at output time date - epoch, as the set's other angles place
        /// the same moment. Nil for a stream in no set.
        public var setEpoch: Date?

        public init(variants: [String], segmentDuration: Double, slotStart: @escaping @Sendable (Int) -> Double, timestampOrigin: Int64, setEpoch: Date? = nil) {
            self.variants = variants
            self.segmentDuration = segmentDuration
            self.slotStart = slotStart
            self.timestampOrigin = timestampOrigin
            self.setEpoch = setEpoch
        }

        /// Where a set's angle places a session that starts with a segment dated `date`: its slot
        /// and the output time (seconds) of its first frame. Nil outside a set, and for a date
        /// that is before the epoch or more than `aheadMargin` past `now` (a pusher's clock gone
        /// wrong: the session is then placed as a stream in no set places it).
        public func setPlacement(of date: Date, now: Date) -> (slot: Int, time: Double)? {
            guard let setEpoch, segmentDuration > 0 else { return nil }
            let time = date.timeIntervalSince(setEpoch)
            guard time.isFinite, time >= 0, date.timeIntervalSince(now) <= aheadMargin,
                  let nearest = WallClockGrid(epoch: setEpoch, segmentDuration: segmentDuration).nearestSlot(to: date) else { return nil }
            return (nearest.slot, time)
        }

        /// The longest segment accepted: longer ones would overlap the next slot's timestamps.
        public var longestSegment: Double { segmentDuration * 1.5 }

        /// How far ahead of now a listed segment's slot may start: a segment is pushed after it
        /// was recorded, so only clocks and rounding put it ahead at all.
        public var aheadMargin: Double { max(30, 10 * segmentDuration) }

        /// How far past the session's highest listed sequence number a segment may be listed: a
        /// day of slots. A pusher's outage leaves a gap that long at most; a number beyond it
        /// would put the segment in a slot days ahead, and the publishing core fills every slot
        /// before the one a segment takes.
        public var longestSequenceJump: Int {
            guard segmentDuration.isFinite, segmentDuration > 0 else { return 0 }
            return Int(min(86_400 / segmentDuration, 1e9).rounded(.up))
        }
    }

    /// A segment received and not yet listed.
    public struct Received: Sendable, Equatable {
        public var duration: Double
        /// Its first video PTS as pushed, in 90 kHz ticks.
        public var firstPTS: Int64
        /// Where its keyframe's bytes end (`PushedSegmentCheck.Inspection.keyframeEnd`).
        public var keyframeEnd: Int
        /// The shift its file was kept restamped by (`openShift` when it came; 0: as pushed).
        public var stamped: Int64

        public init(duration: Double, firstPTS: Int64, keyframeEnd: Int, stamped: Int64 = 0) {
            self.duration = duration
            self.firstPTS = firstPTS
            self.keyframeEnd = keyframeEnd
            self.stamped = stamped
        }
    }

    /// One run of the remote encoder.
    public struct Session: Sendable, Equatable, Codable {
        public var number: Int
        public var firstSlot: Int
        public var firstSequence: Int
        /// The encoder's PTS of the session's first segment, and when its first frame was captured.
        public var firstPTS: Int64
        public var startDate: Date
        /// Ticks added to every timestamp of the session's segments.
        public var shift: Int64
        /// When the server began the session (its clock, not the encoder's): a segment may not
        /// be for a slot that starts later than the time since then allows. Nil in a session
        /// kept by a version that did not record it.
        public var began: Date?
    }

    /// A received segment the publishing core should now list.
    public struct Listing: Sendable, Equatable {
        /// The name it was pushed under (its file among the received ones).
        public var name: String
        public var sequence: Int
        public var slot: Int
        public var duration: Double
        /// 90 kHz ticks to add to every PTS, DTS and PCR of the segment as pushed.
        public var shift: Int64
        /// The shift its received file already carries (`Received.stamped`).
        public var stamped: Int64 = 0
        public var programDateTime: Date
        /// Where its first frame lies on the stream's timeline, in seconds.
        public var startTime: Double
        /// Bytes `0..<keyframeEnd` hold the program tables and the keyframe (the I-frame playlist's range).
        public var keyframeEnd: Int

        /// What is left to add to the received file's timestamps: 0 when it was kept stamped for
        /// the session it is listed in, so its file goes into the recording as it is.
        public var restamp: Int64 { shift &- stamped }
    }

    struct VariantLedger {
        var received: [String: Received] = [:]
        /// The session whose numbering `listed` is in; nil before the first listing.
        var session: Int?
        /// Sequence numbers listed in that session, with the names and first PTS they had.
        var listed: [Int: (name: String, firstPTS: Int64)] = [:]
        var highestListed: Int?
        /// The encoder sent a listed segment again with other timestamps: it started again.
        var restartSeen = false
        /// Restored after a server restart: sequence numbers up to this one were listed by the
        /// earlier process (unless received again: a backlog sent late).
        var restoredUpTo: Int?
    }

    /// What a server restart must not forget (kept with the stream, `<stream>/ingest/session.json`):
    /// the encoder's session, so its sequence numbers keep mapping onto the same slots (a backlog
    /// sent after the restart lands in its own slots), and how far each variant was listed in it
    /// (a playlist ending below that is still an encoder that started again).
    public struct Persisted: Sendable, Equatable, Codable {
        public var session: Session?
        public var highestListed: [String: Int]
        public init(session: Session?, highestListed: [String: Int]) {
            self.session = session
            self.highestListed = highestListed
        }
    }

    public var persisted: Persisted {
        Persisted(session: session, highestListed: variants.compactMapValues { $0.session == session?.number ? $0.highestListed : nil })
    }

    public let settings: Settings
    public private(set) var session: Session?
    /// The shift every segment of the open session takes, nil before one opens: a segment that
    /// comes while it is open is kept restamped by it, so when it is listed in that session (as
    /// nearly all are) its file goes into the recording as it is, written once.
    public var openShift: Int64? { session?.shift }
    var variants: [String: VariantLedger]
    /// How far an EXTINF may differ from the segment's measured video duration: a frame of
    /// rounding at the low frame rates cameras use, and a little more.
    static let durationTolerance = 0.25

    /// `restoring`: what an earlier process of the server kept (`persisted`).
    public init(settings: Settings, restoring: Persisted? = nil) {
        self.settings = settings
        // A ladder that names a variant twice has it once.
        variants = Dictionary(settings.variants.map { ($0, VariantLedger()) }, uniquingKeysWith: { first, _ in first })
        guard let restoring, let session = restoring.session else { return }
        self.session = session
        for (variant, highest) in restoring.highestListed {
            guard var ledger = variants[variant] else { continue }
            ledger.session = session.number
            ledger.highestListed = highest
            ledger.restoredUpTo = highest
            variants[variant] = ledger
        }
    }

    /// Whether `variant` is in the ladder; nil when it is, the refusal otherwise.
    public func check(variant: String) -> Rejection? {
        variants[variant] == nil ? .unknownVariant(variant, known: settings.variants) : nil
    }

    /// Whether a segment that passed `PushedSegmentCheck` may be received: its variant is in
    /// the ladder and it fits a slot. Nil when it may.
    public func check(segment name: String, of variant: String, inspection: PushedSegmentCheck.Inspection) -> Rejection? {
        if let rejection = check(variant: variant) { return rejection }
        guard inspection.duration <= settings.longestSegment else {
            return .segmentTooLong(name: name, seconds: inspection.duration, limit: settings.longestSegment)
        }
        return nil
    }

    /// The segments received and not yet listed, by variant (for tests and the status line).
    public func pending(_ variant: String) -> Set<String> { Set(variants[variant].map { Array($0.received.keys) } ?? []) }

    /// A received segment not listed yet, as the ledger holds it.
    public func received(_ name: String, of variant: String) -> Received? { variants[variant]?.received[name] }

    /// A segment passed the ingest's checks (`PushedSegmentCheck`) and its file is kept: it waits
    /// for a playlist to list it. Refused when it is too long for a slot. Returns whether it
    /// replaced a received segment of the same name (a retried upload).
    /// `stamped`: the shift its file was kept restamped by (`openShift` when it came); the
    /// inspection is of the segment as pushed.
    public mutating func segmentReceived(variant: String, name: String, inspection: PushedSegmentCheck.Inspection, stamped: Int64 = 0) -> Result<Bool, Rejection> {
        if let rejection = check(segment: name, of: variant, inspection: inspection) { return .failure(rejection) }
        guard var ledger = variants[variant] else { return .failure(.unknownVariant(variant, known: settings.variants)) }
        let replaced = ledger.received[name] != nil
        ledger.received[name] = Received(duration: inspection.duration, firstPTS: inspection.firstPTS, keyframeEnd: inspection.keyframeEnd, stamped: stamped)
        if ledger.session == session?.number, ledger.listed.values.contains(where: { $0.name == name && $0.firstPTS != inspection.firstPTS }) {
            ledger.restartSeen = true
        }
        variants[variant] = ledger
        return .success(replaced)
    }

    /// A media playlist of `variant` was uploaded. Returns the received segments it makes
    /// ready, in playlist order; they leave the received set. `now`: the wall clock, for a
    /// session whose playlist carries no EXT-X-PROGRAM-DATE-TIME. `sessionSlot`: the slot a new
    /// session's first segment takes, once the publisher began the session; while it is nil, a
    /// playlist that begins one changes nothing and answers `.beginsSession`: the owner begins a
    /// push session on the publisher (`StreamPublisher.beginPushSession`) and gives this
    /// playlist again with the slot that gave.
    public mutating func playlistReceived(variant: String, text: String, now: Date, sessionSlot: Int?) -> Result<PlaylistReceipt, Rejection> {
        guard var ledger = variants[variant] else { return .failure(.unknownVariant(variant, known: settings.variants)) }
        let playlist: MediaPlaylist
        do {
            // The parser bounds every number (PlaylistLimits): the sequence numbers below, a
            // bounded media sequence plus an index, cannot overflow.
            playlist = try MediaPlaylist.parse(text)
        } catch {
            return .failure(.playlistUnreadable("\(error)"))
        }
        let entries = playlist.segments.enumerated().map { (sequence: playlist.mediaSequence + $0.offset, segment: $0.element) }
        // A segment listed twice would be listed into two slots, and taken from the received
        // set once: refused before anything changes.
        var sequencesByName: [String: [Int]] = [:]
        for entry in entries where !entry.segment.gap { sequencesByName[entry.segment.uri, default: []].append(entry.sequence) }
        if let repeated = entries.first(where: { (sequencesByName[$0.segment.uri]?.count ?? 0) > 1 }) {
            return .failure(.repeatedEntry(name: repeated.segment.uri, sequences: sequencesByName[repeated.segment.uri] ?? []))
        }
        let startsAgain = ledger.restartSeen
            || (ledger.highestListed.map { highest in (entries.last?.sequence ?? highest) < highest } ?? false)
            || entries.contains { entry in ledger.listed[entry.sequence].map { $0.name != entry.segment.uri } ?? false }
        let inCurrentSession = ledger.session != nil && ledger.session == session?.number && !startsAgain
        if !inCurrentSession {
            ledger.listed = [:]
            ledger.highestListed = nil
            ledger.restartSeen = false
            ledger.restoredUpTo = nil
        }
        // What this playlist lists that is not listed yet. A variant new to the session skips
        // what it lists before its first received segment: listed by an earlier server process
        // (or lost with it), not something this one should wait for. After a restart of the
        // server, what the earlier process listed is skipped the same way, unless it comes again.
        let restoredUpTo = ledger.restoredUpTo
        var fresh = entries.filter { entry in
            guard !entry.segment.gap, ledger.listed[entry.sequence] == nil else { return false }
            if let restoredUpTo, entry.sequence <= restoredUpTo { return ledger.received[entry.segment.uri] != nil }
            return true
        }
        if !inCurrentSession, let first = fresh.firstIndex(where: { ledger.received[$0.segment.uri] != nil }) {
            fresh.removeFirst(first)
        } else if !inCurrentSession {
            fresh = []
        }
        for entry in fresh {
            guard let received = ledger.received[entry.segment.uri] else {
                return .failure(.segmentNotReceived(name: entry.segment.uri, sequence: entry.sequence))
            }
            guard abs(received.duration - entry.segment.duration) <= Self.durationTolerance else {
                return .failure(.durationMismatch(name: entry.segment.uri, listed: entry.segment.duration, measured: received.duration))
            }
        }
        guard let firstFresh = fresh.first, let firstReceived = ledger.received[firstFresh.segment.uri] else {
            variants[variant] = ledger
            return .success(.listed([]))
        }
        // Joins the session another variant began since this one last listed, or begins one.
        let joinable = session.map { !inCurrentSession && $0.number != ledger.session } ?? false
        // Every playlist is held to the same bounds, the first of a session too: none of its
        // numbers may lie far beyond the session's highest, nor be for a slot later than the
        // time the session has run allows. A playlist that opens a session is measured from its
        // first fresh entry, which takes the session's first slot, at no time run: a first
        // playlist listing `s0` and a segment numbered a day on would otherwise place it a day
        // ahead, and the publishing core would fill every slot up to it.
        if let session, joinable || inCurrentSession {
            let highest = variants.values.filter { $0.session == session.number }.compactMap(\.highestListed).max() ?? session.firstSequence
            let elapsed = session.began.map { now.timeIntervalSince($0) }
            if let rejection = check(fresh, highest: highest, firstSequence: session.firstSequence, firstSlot: session.firstSlot, elapsed: elapsed) {
                return .failure(rejection)
            }
        } else if let rejection = check(fresh, highest: firstFresh.sequence, firstSequence: firstFresh.sequence, firstSlot: 0, elapsed: 0) {
            return .failure(rejection)
        }
        if !joinable && !inCurrentSession {
            // Nothing is kept before the session's slot is known: asked again with it, this
            // playlist comes here the same way.
            guard var slot = sessionSlot else { return .success(.beginsSession) }
            let startDate = firstFresh.segment.programDateTime ?? now.addingTimeInterval(-firstReceived.duration)
            var start = settings.slotStart(slot)
            if let dated = firstFresh.segment.programDateTime, let placed = settings.setPlacement(of: dated, now: now) {
                // An angle of a set: where its date puts it, not the next open slot.
                (slot, start) = placed
            }
            let origin = Self.ticks(start) &+ settings.timestampOrigin
            session = Session(number: (session?.number ?? 0) + 1, firstSlot: slot, firstSequence: firstFresh.sequence,
                              firstPTS: firstReceived.firstPTS, startDate: startDate, shift: origin &- firstReceived.firstPTS, began: now)
        }
        guard let current = session else {
            variants[variant] = ledger
            return .success(.listed([]))
        }
        ledger.session = current.number
        var listings: [Listing] = []
        for entry in fresh {
            // Each was found received above, and no name is listed twice.
            guard let received = ledger.received.removeValue(forKey: entry.segment.uri) else { continue }
            let sinceStart = Double(received.firstPTS &- current.firstPTS) / 90_000
            let slot = current.firstSlot + entry.sequence - current.firstSequence
            listings.append(Listing(name: entry.segment.uri, sequence: entry.sequence, slot: slot, duration: received.duration, shift: current.shift, stamped: received.stamped,
                                    programDateTime: entry.segment.programDateTime ?? current.startDate.addingTimeInterval(sinceStart),
                                    startTime: Double(received.firstPTS &+ current.shift &- settings.timestampOrigin) / 90_000,
                                    keyframeEnd: received.keyframeEnd))
            ledger.listed[entry.sequence] = (entry.segment.uri, received.firstPTS)
            ledger.highestListed = max(ledger.highestListed ?? entry.sequence, entry.sequence)
        }
        variants[variant] = ledger
        return .success(.listed(listings))
    }

    /// Whether `fresh` keeps a session's bounds: no sequence number more than a day of slots past
    /// `highest`, and (when `elapsed`, the seconds the session has run, is known) none for a slot
    /// that starts more than `aheadMargin` after the time run allows. `firstSlot` and
    /// `firstSequence`: where the session's numbering starts on the grid. Nil when it keeps them.
    private func check(_ fresh: [(sequence: Int, segment: MediaSegment)], highest: Int, firstSequence: Int, firstSlot: Int, elapsed: Double?) -> Rejection? {
        let limit = settings.longestSequenceJump
        if let far = fresh.first(where: { $0.sequence > highest && $0.sequence - highest > limit }) {
            return .sequenceJump(name: far.segment.uri, sequence: far.sequence, highest: highest, limit: limit)
        }
        guard let elapsed else { return nil }
        let first = settings.slotStart(firstSlot)
        for entry in fresh {
            // Bounded above: every sequence is within `limit` (a day of slots) of `highest`.
            let ahead = settings.slotStart(firstSlot &+ (entry.sequence &- firstSequence)) - first - elapsed
            if ahead > settings.aheadMargin {
                return .aheadOfTime(name: entry.segment.uri, seconds: ahead, margin: settings.aheadMargin)
            }
        }
        return nil
    }

    /// Seconds as 90 kHz ticks; a time no Int64 of ticks holds (only a clock gone wrong gives
    /// one) saturates rather than traps.
    static func ticks(_ seconds: Double) -> Int64 {
        let ticks = (seconds * 90_000).rounded()
        guard ticks.isFinite else { return ticks.isNaN ? 0 : (ticks > 0 ? .max : .min) }
        return ticks >= 0x1p63 ? .max : ticks < -0x1p63 ? .min : Int64(ticks)
    }
}
