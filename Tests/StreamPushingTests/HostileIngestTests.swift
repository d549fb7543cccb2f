import Foundation
import HLSPlaylist
import MPEGTS
import StreamPushing
import Testing

/// Uploads a holder of an ingest token can send to stop the server (issue 26): a playlist that
/// lists one received segment twice, numbers no Int can carry on, a sequence number far beyond
/// the session. Each is refused with a reason, and the ledger goes on taking good uploads.
@Suite struct HostileIngestTests {
    var ledger = IngestLedger(settings: .init(variants: ["720p", "360p"], segmentDuration: 2, slotStart: { Double($0) * 2 }, timestampOrigin: 126_000))
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func inspection(_ index: Int, duration: Double = 2) -> PushedSegmentCheck.Inspection {
        PushedSegmentCheck.Inspection(videoPID: 256, duration: duration, firstPTS: 900_000 + Int64(index) * 180_000, keyframeEnd: 188 * 40)
    }

    static func playlist(_ names: [String], from sequence: Int = 0, extinf: String = "2.000000") -> String {
        "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(sequence)\n"
            + names.map { "#EXTINF:\(extinf),\n\($0)\n" }.joined()
    }

    mutating func receive(_ names: [String], from first: Int = 0, variant: String = "720p") {
        for (i, name) in names.enumerated() {
            #expect(throws: Never.self) { try ledger.segmentReceived(variant: variant, name: name, inspection: inspection(first + i)).get() }
        }
    }

    mutating func list(_ text: String, variant: String = "720p") -> Result<[IngestLedger.Listing], IngestLedger.Rejection> {
        ledger.playlistReceived(variant: variant, text: text, now: now) { 40 }
    }

    @Test mutating func aPlaylistThatListsAReceivedSegmentTwiceIsRefused() throws {
        receive(["s0.ts"])
        let twice = list(Self.playlist(["s0.ts", "s0.ts"]))
        #expect(twice == .failure(.repeatedEntry(name: "s0.ts", sequences: [0, 1])))
        #expect(try #require(twice.failure).description.contains("s0.ts"))
        // Nothing was taken: the segment still waits, and a good playlist lists it.
        #expect(ledger.pending("720p") == ["s0.ts"])
        #expect(try list(Self.playlist(["s0.ts"])).get().map(\.slot) == [40])
    }

    @Test mutating func aSegmentListedAgainUnderAnotherNumberIsNotListedTwice() throws {
        receive(["s0.ts", "s1.ts"])
        _ = try list(Self.playlist(["s0.ts", "s1.ts"])).get()
        // The same name again at sequence 2, not received again: refused, not a trap.
        #expect(list(Self.playlist(["s0.ts", "s1.ts", "s0.ts"])) == .failure(.repeatedEntry(name: "s0.ts", sequences: [0, 2])))
    }

    @Test(arguments: ["#EXT-X-MEDIA-SEQUENCE:9223372036854775807", "#EXT-X-MEDIA-SEQUENCE:9223372036854775800",
                      "#EXT-X-BYTERANGE:9223372036854775807@9223372036854775807", "#EXTINF:1e300,", "#EXTINF:nan,"])
    mutating func aNumberNoIntCanCarryIsRefusedAsUnreadable(line: String) throws {
        receive(["s0.ts"])
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n\(line)\n#EXTINF:2,\ns0.ts\n"
        let result = list(text)
        guard case let .failure(.playlistUnreadable(reason)) = result else {
            Issue.record("expected the playlist to be refused as unreadable, got \(result)")
            return
        }
        #expect(reason.contains(line.split(separator: ":")[0]))
    }

    /// A sequence number far past what the session listed would put the segment in a slot days
    /// ahead, and the publishing core would fill every slot up to it.
    @Test mutating func aSequenceNumberFarBeyondTheSessionIsRefused() throws {
        receive(["s0.ts"])
        _ = try list(Self.playlist(["s0.ts"])).get()
        receive(["far.ts"], from: 1)
        let jump = PlaylistLimits.largestNumber
        let result = list(Self.playlist(["far.ts"], from: jump))
        guard case .failure(.sequenceJump(name: "far.ts", sequence: jump, highest: 0, limit: _)) = result else {
            Issue.record("expected a refused jump, got \(result)")
            return
        }
        // Another variant that joins the session with numbers of its own far beyond it, likewise.
        receive(["b0.ts"], variant: "360p")
        #expect(throws: (any Error).self) { try list(Self.playlist(["b0.ts"], from: jump), variant: "360p").get() }
        // The next segment in order is still listed.
        receive(["s1.ts"], from: 1)
        #expect(try list(Self.playlist(["s0.ts", "s1.ts"])).get().map(\.slot) == [41])
    }

    /// A gap in the numbers as long as the time that passed is a pusher's outage, and is taken.
    @Test mutating func aGapOfAnHourAnHourLaterIsTaken() throws {
        receive(["s0.ts"])
        _ = try list(Self.playlist(["s0.ts"])).get()
        receive(["later.ts"], from: 1800)
        let later = ledger.playlistReceived(variant: "720p", text: Self.playlist(["later.ts"], from: 1800), now: now.addingTimeInterval(3600)) { 40 }
        #expect(try later.get().map(\.slot) == [40 + 1800])
    }

    /// A segment numbered for a slot that has not come yet (an hour ahead of the time the
    /// session has run) would have the publishing core fill every slot up to it with stand-ins
    /// at once, and list them for good.
    @Test mutating func aSegmentForASlotStillToComeIsRefused() throws {
        receive(["s0.ts"])
        _ = try list(Self.playlist(["s0.ts"])).get()
        receive(["ahead.ts"], from: 1800)
        let early = ledger.playlistReceived(variant: "720p", text: Self.playlist(["ahead.ts"], from: 1800), now: now.addingTimeInterval(60)) { 40 }
        guard case let .failure(.aheadOfTime(name, seconds, _)) = early else {
            Issue.record("expected a refusal, got \(early)")
            return
        }
        #expect(name == "ahead.ts" && seconds > 3000)
        #expect(try #require(early.failure).description.contains("ahead.ts"))
        // The same playlist an hour on is on time.
        let onTime = ledger.playlistReceived(variant: "720p", text: Self.playlist(["ahead.ts"], from: 1800), now: now.addingTimeInterval(3600)) { 40 }
        #expect(try onTime.get().map(\.slot) == [40 + 1800])
    }

    /// The first playlist of a session is held to the bounds later ones are (issue 33). GAP
    /// entries are skipped, so one playlist can list its first segment and, after a run of
    /// GAPs, another numbered far on; before, no session had begun to measure it against, and
    /// the second went to a slot days (or half an hour) ahead, which the publishing core fills
    /// up to at once. `gaps`: how many GAP entries stand between them.
    @Test(arguments: [(gaps: 50_000, jump: true), (gaps: 900, jump: false)])
    mutating func theFirstPlaylistOfASessionIsHeldToTheBoundsOfLaterOnes(gaps: Int, jump: Bool) throws {
        receive(["s0.ts"])
        receive(["far.ts"], from: 1)
        var text = Self.playlist(["s0.ts"])
        text += String(repeating: "#EXT-X-GAP\n#EXTINF:2.000000,\ngap.ts\n", count: gaps) + "#EXTINF:2.000000,\nfar.ts\n"
        var sessions = 0
        let first = ledger.playlistReceived(variant: "720p", text: text, now: now) {
            sessions += 1
            return 40
        }
        switch first {
        case let .failure(.sequenceJump(name, sequence, highest, _)) where jump:
            #expect(name == "far.ts" && sequence == gaps + 1 && highest == 0)
        case let .failure(.aheadOfTime(name, seconds, _)) where !jump:
            #expect(name == "far.ts" && seconds == Double(gaps + 1) * 2)
        default:
            Issue.record("expected the first playlist refused (\(jump ? "jump" : "ahead")), got \(first)")
        }
        #expect(sessions == 0, "a refused playlist begins no session")
        #expect(ledger.session == nil)
        #expect(ledger.pending("720p") == ["s0.ts", "far.ts"], "nothing was taken")
        // The same segment alone opens the session as before.
        #expect(try list(Self.playlist(["s0.ts"])).get().map(\.slot) == [40])
    }

    /// A first playlist that lists a backlog as long as the margin allows is taken whole.
    @Test mutating func aFirstPlaylistWithinTheMarginIsTaken() throws {
        let names = (0..<16).map { "s\($0).ts" }
        receive(names)
        #expect(try list(Self.playlist(names)).get().map(\.slot) == Array(40..<56))
    }

    @Test func everyRefusalRendersWhateverItCarries() {
        let rejections: [IngestLedger.Rejection] = [
            .segmentTooLong(name: "a.ts", seconds: .infinity, limit: 3),
            .durationMismatch(name: "a.ts", listed: 1e300, measured: .nan),
            .repeatedEntry(name: "a.ts", sequences: [0, .max]),
            .sequenceJump(name: "a.ts", sequence: .max, highest: .min, limit: 43_200),
            .aheadOfTime(name: "a.ts", seconds: .infinity, margin: .nan),
        ]
        for rejection in rejections { #expect(!rejection.description.isEmpty) }
    }

    @Test func metadataBodiesOfAnyShapeAreAnsweredWithAValueOrARefusal() {
        let bodies: [[UInt8]] = [[], [0xFF, 0xFE], Array("{".utf8), Array(String(repeating: "[", count: 100_000).utf8), Array("{\"title\": 1e400}".utf8),
                                 Array("{\"title\": \"\\ud800\"}".utf8), Array("\n\n\n".utf8), Array(String(repeating: "a", count: 5_000).utf8)]
        for body in bodies { _ = StreamMetadata.parse(body) }
        #expect(StreamMetadata.parse(Array(String(repeating: "a", count: 5_000).utf8)) == .failure(.tooLong(field: "title", limit: 1_000)))
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(failure) = self { return failure }
        return nil
    }
}
