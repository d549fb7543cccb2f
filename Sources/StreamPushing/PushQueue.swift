import Foundation
import HLSPlaylist
import SidelineCore

/// What `sideline push` holds and what it sends next, as plain values: the segments the
/// encoder finished, by variant and timeline slot, until the server acknowledged each (the
/// playlist that lists it answered 200), and the playlist each upload is followed by. The
/// files behind it live in the on-disk queue (`PushQueueDirectory`); this is the ledger of
/// them. Pure.
///
/// **Numbering.** A segment's media sequence number is its slot on push's own timeline
/// (`PushTimeline`): the same slot after a restart of `push`, a cut, or a backlog, so the
/// server (`IngestLedger`) puts every segment in its own slot of the stream's timeline.
///
/// **Playlists.** After a segment of a variant went up, that variant's playlist follows. It
/// lists from the oldest segment sent and not yet acknowledged up to the newest sent or
/// acknowledged (`acknowledgedUpTo`, kept across restarts), so it always reaches what the
/// server listed last: the server takes a playlist that ends below that for an encoder that
/// started again. Slots in between that are not sent (queued, acknowledged already, or never
/// there: a restart of `push`, a rung dropped for a while) are EXT-X-GAP entries, which the
/// server reads as "not sent yet".
public struct PushQueue: Sendable, Equatable {
    public struct Segment: Sendable, Equatable, Codable {
        public var slot: Int
        /// EXTINF: the segment's real duration.
        public var duration: Double
        /// When its first frame was captured (EXT-X-PROGRAM-DATE-TIME).
        public var programDateTime: Date
        public var bytes: Int

        public init(slot: Int, duration: Double, programDateTime: Date, bytes: Int) {
            self.slot = slot
            self.duration = duration
            self.programDateTime = programDateTime
            self.bytes = bytes
        }
    }

    struct Held: Sendable, Equatable {
        var segment: Segment
        /// The server answered 201/200 to its upload; it is listed once a playlist naming it is.
        var uploaded = false
    }

    public let segmentDuration: Double
    /// Held segments by variant, then slot.
    private(set) var held: [String: [Int: Held]] = [:]
    /// The newest slot the encoder finished: the live edge.
    public private(set) var newest: Int?
    /// The newest slot of each variant the server acknowledged: where its playlists reach at
    /// least. Kept with the queue (`push` restarted with a backlog must still reach it).
    public var acknowledgedUpTo: [String: Int] = [:]

    public init(segmentDuration: Double) {
        self.segmentDuration = segmentDuration
    }

    /// The name a slot's segment is pushed under: its sequence number, so it is the same
    /// after a restart (the server takes a listed name with another number as a new encoder).
    public static func segmentName(slot: Int) -> String {
        let digits = String(slot)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits + ".ts"
    }

    /// The encoder finished `segment` of `variant` (its file is in the on-disk queue).
    public mutating func add(_ segment: Segment, of variant: String) {
        held[variant, default: [:]][segment.slot] = Held(segment: segment)
        newest = max(newest ?? segment.slot, segment.slot)
    }

    /// Segments held, all variants.
    public var count: Int { held.values.reduce(0) { $0 + $1.count } }
    public var isEmpty: Bool { count == 0 }

    /// The oldest slot held (its capture time says how far the queue is behind).
    public var oldest: Segment? { held.values.flatMap(\.values).map(\.segment).min { $0.slot < $1.slot } }

    /// Slots with a segment still to upload, all variants.
    public var unsentSlots: Set<Int> { Set(held.values.flatMap { $0.values.filter { !$0.uploaded }.map(\.segment.slot) }) }

    /// The slot to upload next (`PushQueueOrder`); nil when every held segment went up.
    public func nextSlot(backlog: PushQueueOrder.Backlog) -> Int? {
        PushQueueOrder.next(queued: unsentSlots, newest: newest, backlog: backlog)
    }

    /// The variants whose segment for `slot` is still to upload, in the order given (best first).
    public func unsent(slot: Int, order: [String]) -> [String] {
        order.filter { held[$0]?[slot].map { !$0.uploaded } ?? false }
    }

    public func segment(of variant: String, slot: Int) -> Segment? { held[variant]?[slot]?.segment }

    /// The server took the segment (201 or 200): a playlist may name it now.
    public mutating func uploaded(_ variant: String, slot: Int) {
        held[variant]?[slot]?.uploaded = true
    }

    /// The segment leaves the queue without being listed (the server refused it for good).
    public mutating func drop(_ variant: String, slot: Int) {
        held[variant]?[slot] = nil
    }

    /// The server may have lost what it received (it refused a playlist naming them): the
    /// variant's uploaded, unacknowledged segments go up again.
    public mutating func resend(_ variant: String) {
        for slot in Array((held[variant] ?? [:]).keys) { held[variant]![slot]!.uploaded = false }
    }

    /// The playlist that follows an upload of `variant`: nil when nothing of it is uploaded.
    public func playlist(of variant: String, targetDuration: Int) -> MediaPlaylist? {
        let uploaded = (held[variant] ?? [:]).values.filter(\.uploaded).map(\.segment.slot)
        guard let first = uploaded.min(), let newestSent = uploaded.max() else { return nil }
        let last = max(newestSent, acknowledgedUpTo[variant] ?? newestSent)
        let segments = (first...last).map { slot -> MediaSegment in
            guard let entry = held[variant]?[slot], entry.uploaded else {
                return MediaSegment(uri: Self.segmentName(slot: slot), duration: held[variant]?[slot]?.segment.duration ?? segmentDuration, gap: true)
            }
            return MediaSegment(uri: Self.segmentName(slot: slot), duration: entry.segment.duration, programDateTime: entry.segment.programDateTime)
        }
        return MediaPlaylist(targetDuration: targetDuration, mediaSequence: first, playlistType: .event, segments: segments)
    }

    /// The server answered 200 to `playlist` of `variant`: every segment it named (not as a
    /// GAP) is acknowledged and leaves the queue. Returns their slots, for their files to go.
    public mutating func acknowledged(_ playlist: MediaPlaylist, of variant: String) -> [Int] {
        var done: [Int] = []
        for (offset, entry) in playlist.segments.enumerated() where !entry.gap {
            let slot = playlist.mediaSequence + offset
            guard held[variant]?[slot]?.uploaded == true else { continue }
            held[variant]![slot] = nil
            done.append(slot)
        }
        if let last = done.max() { acknowledgedUpTo[variant] = max(acknowledgedUpTo[variant] ?? last, last) }
        if held[variant]?.isEmpty == true { held[variant] = nil }
        return done
    }
}

/// `push`'s own timeline: slot k starts k x D after the epoch (the first multiple of D since
/// 1970 at or after the first run's start), kept in the queue directory, so a restarted
/// `push` numbers its segments on from where the wall clock is, and the server places each in
/// its own slot. Pure.
public struct PushTimeline: SlotGrid, Sendable, Equatable, Codable {
    public var epoch: Date
    public var segmentDuration: Double

    public init(epoch: Date, segmentDuration: Double) {
        self.epoch = epoch
        self.segmentDuration = segmentDuration
    }

    // A new queue's timeline is `SlotGrid.starting(at:)`, the rule an angle set's epoch
    // follows (`SetTimeline`, StreamPublishing): a pusher and a server whose clocks agree then
    // cut segments on the same grid, so a pushed angle's segments start on the set's slots,
    // not up to half a segment off. The first run waits for slot 0's start, less than D; its
    // slots are the grid's (`firstSlot(startingAt:)`, `start(of:)`).

    /// The slot a run started at `now` begins with, after anything already queued (a wall
    /// clock set back must not number a new segment like a queued one).
    public func firstSlot(startingAt now: Date, after newestQueued: Int?) -> Int {
        max(firstSlot(startingAt: now), (newestQueued ?? -1) + 1)
    }

}
