import Foundation
import MPEGTS
import StreamPushing
import Testing

/// A pushed angle of a set: its session is placed by its first segment's program date-time on
/// the set's grid, not in the next open slot, and its first frame at output time date - epoch.
@Suite struct SetAngleIngestTests {
    static let origin: Int64 = 126_000
    let epoch = Date(timeIntervalSince1970: 1_800_000_000)
    var now: Date { epoch.addingTimeInterval(100) }

    func ledger(setEpoch: Date?) -> IngestLedger {
        IngestLedger(settings: .init(variants: ["720p"], segmentDuration: 2, slotStart: { Double($0) * 2 }, timestampOrigin: Self.origin, setEpoch: setEpoch))
    }

    func playlist(_ names: [String], from sequence: Int, firstDate: Date?) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(sequence)\n#EXT-X-PLAYLIST-TYPE:EVENT\n"
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for (i, name) in names.enumerated() {
            if let firstDate { text += "#EXT-X-PROGRAM-DATE-TIME:\(formatter.string(from: firstDate.addingTimeInterval(Double(i) * 2)))\n" }
            text += "#EXTINF:2.000000,\n\(name)\n"
        }
        return text
    }

    /// Received segments s0, s1 (2 s apart, from PTS 10 s); listed with their dates.
    func listed(_ ledger: inout IngestLedger, firstDate: Date?, sessionSlot: Int = 49) throws -> [IngestLedger.Listing] {
        for (i, name) in ["s0.ts", "s1.ts"].enumerated() {
            let inspection = PushedSegmentCheck.Inspection(videoPID: 256, duration: 2, firstPTS: 900_000 + Int64(i) * 180_000, keyframeEnd: 188 * 40)
            _ = try ledger.segmentReceived(variant: "720p", name: name, inspection: inspection).get()
        }
        return try ledger.playlistReceived(variant: "720p", text: playlist(["s0.ts", "s1.ts"], from: 7, firstDate: firstDate), now: now) { sessionSlot }.get()
    }

    /// First frame captured 80.4 s after the epoch: slot 40 (the nearest), its first frame at
    /// output time 80.4 s (where the set's cameras put that moment); the next segment slot 41.
    @Test func sessionIsPlacedByItsDateOnTheSetsGrid() throws {
        var angle = ledger(setEpoch: epoch)
        let listings = try listed(&angle, firstDate: epoch.addingTimeInterval(80.4))
        #expect(listings.map(\.slot) == [40, 41])
        #expect(listings.map(\.startTime) == [80.4, 82.4])
        #expect(listings[0].shift == Int64((80.4 * 90_000).rounded()) + Self.origin - 900_000)
    }

    /// Without a date, a date before the epoch, or one far in the future (a pusher's clock gone
    /// wrong), the session takes the slot the publishing core gives it, as outside a set.
    @Test func undatedOrImplausibleDatesTakeTheNextOpenSlot() throws {
        for date in [nil, epoch.addingTimeInterval(-50), epoch.addingTimeInterval(100 + 3_600)] {
            var angle = ledger(setEpoch: epoch)
            let listings = try listed(&angle, firstDate: date)
            #expect(listings.map(\.slot) == [49, 50])
            #expect(listings.map(\.startTime) == [98, 100])
        }
    }

    /// A stream in no set: placed in the next open slot whatever its dates say.
    @Test func streamInNoSetIgnoresTheDateForItsSlot() throws {
        var plain = ledger(setEpoch: nil)
        #expect(try listed(&plain, firstDate: epoch.addingTimeInterval(80.4)).map(\.slot) == [49, 50])
    }
}
