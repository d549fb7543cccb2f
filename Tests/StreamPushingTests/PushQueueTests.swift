import Foundation
import HLSPlaylist
import MPEGTS
import SidelineCore
import StreamPushing
import Testing

/// What push holds and the playlists it sends, checked against the server's side of the same
/// protocol (`IngestLedger`) in milliseconds: every segment lands once, in its own slot, in
/// both backlog modes, through a cut and a restart of push.
@Suite struct PushQueueTests {
    let epoch = Date(timeIntervalSince1970: 1_800_000_000)
    let variants = ["720p", "360p"]

    func segment(_ slot: Int) -> PushQueue.Segment {
        PushQueue.Segment(slot: slot, duration: 2, programDateTime: epoch.addingTimeInterval(Double(slot) * 2), bytes: 100_000)
    }

    @Test func aPlaylistReachesFromTheOldestUnacknowledgedToTheNewestListedWithGapsBetween() throws {
        var queue = PushQueue(segmentDuration: 2)
        for slot in 10...14 { queue.add(segment(slot), of: "720p") }
        #expect(queue.playlist(of: "720p", targetDuration: 2) == nil, "nothing uploaded, nothing to list")
        queue.uploaded("720p", slot: 14)
        let live = try #require(queue.playlist(of: "720p", targetDuration: 2))
        #expect(live.mediaSequence == 14 && live.segments.map(\.uri) == ["00000014.ts"])
        #expect(queue.acknowledged(live, of: "720p") == [14])
        queue.uploaded("720p", slot: 10)
        let backlog = try #require(queue.playlist(of: "720p", targetDuration: 2))
        #expect(backlog.mediaSequence == 10)
        #expect(backlog.segments.map(\.gap) == [false, true, true, true, true], "11-13 not sent yet, 14 listed already: it still ends there")
        #expect(backlog.segments[0].programDateTime == epoch.addingTimeInterval(20))
        #expect(try MediaPlaylist.parse(backlog.render()) == backlog)
        #expect(queue.acknowledged(backlog, of: "720p") == [10])
        #expect(queue.unsentSlots == [11, 12, 13])
        #expect(queue.oldest?.slot == 11)
    }

    @Test func theNextSlotFollowsTheBacklogMode() {
        var queue = PushQueue(segmentDuration: 2)
        for slot in 3...8 { queue.add(segment(slot), of: "720p") }
        #expect(queue.nextSlot(backlog: .catchUp) == 3)
        #expect(queue.nextSlot(backlog: .liveFirst) == 8)
        queue.uploaded("720p", slot: 8)
        #expect(queue.nextSlot(backlog: .liveFirst) == 3)
        #expect(queue.unsent(slot: 8, order: variants) == [])
        queue.add(segment(8), of: "360p")
        #expect(queue.unsent(slot: 8, order: variants) == ["360p"])
    }

    @Test func aRefusedPlaylistSendsItsSegmentsAgain() {
        var queue = PushQueue(segmentDuration: 2)
        queue.add(segment(1), of: "720p")
        queue.uploaded("720p", slot: 1)
        queue.resend("720p")
        #expect(queue.unsentSlots == [1])
    }

    // MARK: Against the server's ledger

    /// The server's side: the ledger with 2 s slots (slot 0's first PTS at 1.4 s), and what
    /// it listed where.
    struct Server {
        var ledger = IngestLedger(settings: .init(variants: ["720p", "360p"], segmentDuration: 2, slotStart: { Double($0) * 2 }, timestampOrigin: 126_000))
        var sessions = 0
        /// Variant -> slot -> push's slot listed there.
        var listed: [String: [Int: Int]] = [:]
        /// The server's clock: `run` moves it on one slot per slot encoded (a segment is never
        /// for a slot still to come).
        var now = Date(timeIntervalSince1970: 1_800_000_100)

        /// push's segments: its muxer puts slot k's first PTS at k x 2 s + 2.4 s.
        mutating func receive(_ variant: String, slot: Int) {
            let inspection = PushedSegmentCheck.Inspection(videoPID: 256, duration: 2, firstPTS: 216_000 + Int64(slot) * 180_000, keyframeEnd: 188 * 20)
            _ = ledger.segmentReceived(variant: variant, name: PushQueue.segmentName(slot: slot), inspection: inspection)
        }

        mutating func playlist(_ variant: String, _ playlist: MediaPlaylist) throws {
            let listings = try ledger.playlistReceived(variant: variant, text: playlist.render(), now: now) {
                sessions += 1
                return 500
            }.get()
            for listing in listings {
                let pushed = Int(listing.name.dropLast(3))!
                #expect(listed[variant]?[listing.slot] == nil, "slot \(listing.slot) of \(variant) listed twice")
                listed[variant, default: [:]][listing.slot] = pushed
                // The segment's own timestamps, moved: slot s starts at s x 2 s + 1.4 s.
                #expect(Double(216_000 + Int64(pushed) * 180_000 + listing.shift - 126_000) / 90_000 == Double(listing.slot) * 2)
            }
        }
    }

    /// Uploads every variant's segment for `slot` and the playlist after each, as push does.
    func send(_ slot: Int, queue: inout PushQueue, server: inout Server) throws {
        for variant in queue.unsent(slot: slot, order: variants) {
            server.receive(variant, slot: slot)
            queue.uploaded(variant, slot: slot)
            let playlist = try #require(queue.playlist(of: variant, targetDuration: 2))
            try server.playlist(variant, playlist)
            _ = queue.acknowledged(playlist, of: variant)
        }
    }

    /// push encodes `slots` one per step; during `cut` nothing goes up; after it, up to three
    /// slots' uploads per step (a link faster than real time), in `backlog` order. At
    /// `serverRestart` the server's ledger is made again from what it kept.
    func run(slots: Range<Int>, cut: Range<Int>, serverRestart: Int? = nil, backlog: PushQueueOrder.Backlog) throws -> (Server, PushQueue) {
        var queue = PushQueue(segmentDuration: 2)
        var server = Server()
        for slot in slots {
            server.now = Date(timeIntervalSince1970: 1_800_000_100 + Double(slot - slots.lowerBound) * 2)
            for variant in variants { queue.add(segment(slot), of: variant) }
            if slot == serverRestart { server.ledger = IngestLedger(settings: server.ledger.settings, restoring: server.ledger.persisted) }
            guard !cut.contains(slot) else { continue }
            for _ in 0..<3 {
                guard let next = queue.nextSlot(backlog: backlog) else { break }
                try send(next, queue: &queue, server: &server)
            }
        }
        while let next = queue.nextSlot(backlog: backlog) { try send(next, queue: &queue, server: &server) }
        return (server, queue)
    }

    /// A 10-slot cut in the middle of 30 slots: every slot of push is listed once, in the
    /// server slot its number says, whichever way the backlog goes, in one session.
    @Test(arguments: [PushQueueOrder.Backlog.catchUp, .liveFirst])
    func aCutLosesNothingAndEverySegmentLandsInItsOwnSlot(backlog: PushQueueOrder.Backlog) throws {
        let (server, queue) = try run(slots: 100..<130, cut: 110..<120, backlog: backlog)
        #expect(server.sessions == 1, "one encoder session: the backlog never looks like a restart")
        for variant in variants {
            #expect(server.listed[variant] == Dictionary(uniqueKeysWithValues: (100..<130).map { (500 + $0 - 100, $0) }))
        }
        #expect(queue.isEmpty)
    }

    /// The server restarts in the middle of a cut: its ledger comes back from what it kept
    /// (`persisted`), and the backlog still lands in its own slots, in one session.
    @Test(arguments: [PushQueueOrder.Backlog.catchUp, .liveFirst])
    func aServerRestartedDuringACutKeepsTheSlots(backlog: PushQueueOrder.Backlog) throws {
        let (server, _) = try run(slots: 0..<30, cut: 10..<20, serverRestart: 15, backlog: backlog)
        #expect(server.sessions == 1)
        for variant in variants {
            #expect(server.listed[variant] == Dictionary(uniqueKeysWithValues: (0..<30).map { (500 + $0, $0) }))
        }
    }

    /// An encoder that started again while the server was down (ffmpeg numbers from 0 again)
    /// is still a new session after the server's restart.
    @Test func anEncoderRestartedWhileTheServerWasDownStartsANewSession() throws {
        var server = Server()
        for slot in 0..<4 {
            server.receive("720p", slot: slot)
            try server.playlist("720p", MediaPlaylist(targetDuration: 2, segments: (0...slot).map { MediaSegment(uri: PushQueue.segmentName(slot: $0), duration: 2) }))
        }
        server.ledger = IngestLedger(settings: server.ledger.settings, restoring: server.ledger.persisted)
        server.listed = [:]
        server.receive("720p", slot: 0)
        try server.playlist("720p", MediaPlaylist(targetDuration: 2, segments: [MediaSegment(uri: PushQueue.segmentName(slot: 0), duration: 2)]))
        #expect(server.sessions == 2, "numbers that went back are a new encoder")
        // And a playlist that only names what the earlier process listed lists nothing twice.
        var again = Server()
        for slot in 0..<3 {
            again.receive("720p", slot: slot)
            try again.playlist("720p", MediaPlaylist(targetDuration: 2, segments: (0...slot).map { MediaSegment(uri: PushQueue.segmentName(slot: $0), duration: 2) }))
        }
        again.ledger = IngestLedger(settings: again.ledger.settings, restoring: again.ledger.persisted)
        again.receive("720p", slot: 3)
        try again.playlist("720p", MediaPlaylist(targetDuration: 2, segments: (0...3).map { MediaSegment(uri: PushQueue.segmentName(slot: $0), duration: 2) }))
        #expect(again.sessions == 1 && again.listed["720p"]?[503] == 3, "slot 503 for segment 3, the rest already listed")
    }

    /// push killed after its segment went up but before the playlist, then started again from
    /// what it kept on disk: what was acknowledged is not sent again, the rest lands in place.
    @Test func aRestartedPushSendsWhatWasQueuedAndNothingTwice() throws {
        var queue = PushQueue(segmentDuration: 2)
        var server = Server()
        for slot in 0..<5 {
            for variant in variants { queue.add(segment(slot), of: variant) }
            if slot < 3 { try send(slot, queue: &queue, server: &server) }
        }
        // Slot 3 of 720p went up; the playlist did not (killed). What survives on disk: the
        // unacknowledged segments, and how far each variant was acknowledged.
        server.receive("720p", slot: 3)
        let kept = queue.acknowledgedUpTo
        var restarted = PushQueue(segmentDuration: 2)
        restarted.acknowledgedUpTo = kept
        for slot in 3..<5 { for variant in variants { restarted.add(segment(slot), of: variant) } }
        // The new run starts at slot 9 (the wall clock moved on while push was down).
        for slot in 9..<11 { for variant in variants { restarted.add(segment(slot), of: variant) } }
        while let next = restarted.nextSlot(backlog: .catchUp) { try send(next, queue: &restarted, server: &server) }
        #expect(server.sessions == 1)
        for variant in variants {
            #expect(server.listed[variant] == Dictionary(uniqueKeysWithValues: ([0, 1, 2, 3, 4, 9, 10]).map { (500 + $0, $0) }))
        }
    }
}
