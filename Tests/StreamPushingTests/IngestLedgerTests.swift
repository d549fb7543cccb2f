import Foundation
import MPEGTS
import StreamPushing
import Testing

/// What the ingest lists from a remote encoder's uploads, and where on the stream's timeline.
@Suite struct IngestLedgerTests {
    /// 2 s slots starting at k x 2 s; slot 0's first PTS at 1.4 s (the muxer's delay).
    static let origin: Int64 = 126_000
    var ledger = IngestLedger(settings: .init(variants: ["720p", "360p"], segmentDuration: 2, slotStart: { Double($0) * 2 }, timestampOrigin: origin))
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A segment as `PushedSegmentCheck` describes it: `index` 2 s segments after the encoder's
    /// own start at `base` ticks.
    func inspection(_ index: Int, base: Int64 = 900_000, duration: Double = 2) -> PushedSegmentCheck.Inspection {
        PushedSegmentCheck.Inspection(videoPID: 256, duration: duration, firstPTS: base + Int64(index) * 180_000, keyframeEnd: 188 * 40)
    }

    /// What ffmpeg's HLS muxer uploads: EVENT, EXTINF per segment, optional dates.
    func playlist(_ names: [String], from sequence: Int = 0, durations: [Double]? = nil, gaps: Set<String> = [], dates: Date? = nil) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(sequence)\n#EXT-X-PLAYLIST-TYPE:EVENT\n"
        for (i, name) in names.enumerated() {
            if let dates {
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                text += "#EXT-X-PROGRAM-DATE-TIME:\(formatter.string(from: dates.addingTimeInterval(Double(i) * 2)))\n"
            }
            if gaps.contains(name) { text += "#EXT-X-GAP\n" }
            let duration: Double = durations?[i] ?? 2
            text += "#EXTINF:\(String(format: "%.6f", duration)),\n\(name)\n"
        }
        return text
    }

    mutating func receive(_ variant: String, _ names: [String], from first: Int = 0, base: Int64 = 900_000) {
        for (i, name) in names.enumerated() {
            #expect(throws: Never.self) { try ledger.segmentReceived(variant: variant, name: name, inspection: inspection(first + i, base: base)).get() }
        }
    }

    mutating func list(_ variant: String, _ text: String, startsAt slot: Int = 40, sessions: inout Int) -> Result<[IngestLedger.Listing], IngestLedger.Rejection> {
        ledger.playlistReceived(variant: variant, text: text, now: now) {
            sessions += 1
            return slot
        }
    }

    @Test mutating func listedSegmentsTakeConsecutiveSlotsFromTheSessionsFirstWithOneTimestampShift() throws {
        var sessions = 0
        receive("720p", ["s0.ts", "s1.ts"])
        let listed = try list("720p", playlist(["s0.ts", "s1.ts"]), sessions: &sessions).get()
        #expect(sessions == 1)
        #expect(listed.map(\.name) == ["s0.ts", "s1.ts"])
        #expect(listed.map(\.slot) == [40, 41])
        // Slot 40 starts at 80 s: the first PTS moves from the encoder's 10 s to 80 s + 1.4 s.
        #expect(listed.map(\.shift) == [80 * 90_000 + Self.origin - 900_000, 80 * 90_000 + Self.origin - 900_000])
        #expect(listed.map(\.startTime) == [80, 82])
        #expect(listed.map(\.keyframeEnd) == [188 * 40, 188 * 40], "the I-frame range the check found")
        // No dates in the playlist: the first frame was captured one segment before now.
        #expect(listed.map(\.programDateTime) == [now.addingTimeInterval(-2), now])
        #expect(ledger.pending("720p").isEmpty)
    }

    @Test mutating func datesInThePlaylistAreTheProgramDateTimes() throws {
        var sessions = 0
        receive("720p", ["s0.ts"])
        let captured = Date(timeIntervalSince1970: 1_799_999_990)
        let listed = try list("720p", playlist(["s0.ts"], dates: captured), sessions: &sessions).get()
        #expect(listed.first?.programDateTime == captured)
    }

    @Test mutating func aPlaylistThatNamesASegmentNotReceivedIsRefusedWholeAndListsNothing() throws {
        var sessions = 0
        receive("720p", ["s0.ts"])
        let result = list("720p", playlist(["s0.ts", "s1.ts"]), sessions: &sessions)
        #expect(result == .failure(.segmentNotReceived(name: "s1.ts", sequence: 1)))
        #expect(sessions == 0, "no session begins on a refused playlist")
        #expect(ledger.pending("720p") == ["s0.ts"], "the received segment waits for a good playlist")
        receive("720p", ["s1.ts"], from: 1)
        #expect(try list("720p", playlist(["s0.ts", "s1.ts"]), sessions: &sessions).get().map(\.slot) == [40, 41])
    }

    @Test mutating func anEXTINFThatDisagreesWithTheVideoIsRefused() {
        var sessions = 0
        receive("720p", ["s0.ts"])
        #expect(list("720p", playlist(["s0.ts"], durations: [4]), sessions: &sessions) == .failure(.durationMismatch(name: "s0.ts", listed: 4, measured: 2)))
    }

    @Test mutating func aSegmentLongerThanASlotAndAHalfIsRefused() {
        let result = ledger.segmentReceived(variant: "720p", name: "long.ts", inspection: inspection(0, duration: 3.2))
        #expect(result == .failure(.segmentTooLong(name: "long.ts", seconds: 3.2, limit: 3)))
        #expect(ledger.pending("720p").isEmpty)
    }

    @Test mutating func aVariantOutsideTheLadderIsRefusedNamingTheLadder() {
        var sessions = 0
        #expect(ledger.segmentReceived(variant: "1080p", name: "s0.ts", inspection: inspection(0)) == .failure(.unknownVariant("1080p", known: ["720p", "360p"])))
        #expect(list("1080p", playlist([]), sessions: &sessions) == .failure(.unknownVariant("1080p", known: ["720p", "360p"])))
        #expect("\(IngestLedger.Rejection.unknownVariant("1080p", known: ["720p", "360p"]))".contains("720p, 360p"))
    }

    @Test mutating func anUnreadablePlaylistIsRefusedWithTheParsersReason() throws {
        var sessions = 0
        guard case let .failure(.playlistUnreadable(reason)) = list("720p", "not a playlist", sessions: &sessions) else {
            Issue.record("an unreadable playlist was accepted")
            return
        }
        #expect(!reason.isEmpty)
    }

    @Test mutating func theSecondVariantJoinsTheSessionTheFirstBegan() throws {
        var sessions = 0
        receive("720p", ["a0.ts"])
        receive("360p", ["b0.ts"])
        _ = try list("720p", playlist(["a0.ts"]), sessions: &sessions).get()
        let other = try list("360p", playlist(["b0.ts"]), startsAt: 99, sessions: &sessions).get()
        #expect(sessions == 1)
        #expect(other.map(\.slot) == [40], "the same sequence number is the same slot in every variant")
    }

    @Test mutating func aRetriedUploadReplacesTheReceivedSegment() throws {
        receive("720p", ["s0.ts"])
        #expect(try ledger.segmentReceived(variant: "720p", name: "s0.ts", inspection: inspection(0)).get() == true)
        #expect(try ledger.segmentReceived(variant: "720p", name: "s1.ts", inspection: inspection(1)).get() == false)
    }

    @Test mutating func playlistsOnlyListWhatIsNewAndAListedSegmentSentAgainIsNotListedTwice() throws {
        var sessions = 0
        receive("720p", ["s0.ts"])
        _ = try list("720p", playlist(["s0.ts"]), sessions: &sessions).get()
        receive("720p", ["s1.ts"], from: 1)
        #expect(try list("720p", playlist(["s0.ts", "s1.ts"]), sessions: &sessions).get().map(\.name) == ["s1.ts"])
        // The same playlist again (a retried upload): nothing new.
        #expect(try list("720p", playlist(["s0.ts", "s1.ts"]), sessions: &sessions).get().isEmpty)
        // A listed segment uploaded again with the same timestamps is a retry: no new session.
        receive("720p", ["s1.ts"], from: 1)
        receive("720p", ["s2.ts"], from: 2)
        #expect(try list("720p", playlist(["s0.ts", "s1.ts", "s2.ts"]), sessions: &sessions).get().map(\.slot) == [42])
        #expect(sessions == 1)
    }

    @Test mutating func anEncoderThatStartsAgainBeginsANewSessionAtTheSlotTheCoreGives() throws {
        var sessions = 0
        receive("720p", ["s0.ts", "s1.ts", "s2.ts"])
        _ = try list("720p", playlist(["s0.ts", "s1.ts", "s2.ts"]), sessions: &sessions).get()
        // ffmpeg run again: the same names from 0, its timestamps from its own start again.
        receive("720p", ["s0.ts"], base: 126_000)
        let again = try list("720p", playlist(["s0.ts"]), startsAt: 50, sessions: &sessions).get()
        #expect(sessions == 2)
        #expect(again.map(\.slot) == [50])
        #expect(again.first?.shift == 100 * 90_000 + Self.origin - 126_000)
        // The other variant starts again too and joins the new session.
        receive("360p", ["s0.ts"], base: 126_000)
        #expect(try list("360p", playlist(["s0.ts"]), startsAt: 77, sessions: &sessions).get().map(\.slot) == [50])
        #expect(sessions == 2)
    }

    @Test mutating func aSegmentListedUnderAnotherNameMeansANewSession() throws {
        var sessions = 0
        receive("720p", ["old0.ts", "old1.ts"])
        _ = try list("720p", playlist(["old0.ts", "old1.ts"]), sessions: &sessions).get()
        receive("720p", ["new0.ts", "new1.ts", "new2.ts"], base: 0)
        #expect(try list("720p", playlist(["new0.ts", "new1.ts", "new2.ts"]), startsAt: 60, sessions: &sessions).get().map(\.slot) == [60, 61, 62])
        #expect(sessions == 2)
    }

    @Test mutating func gapEntriesAreNotSentYetAndAreListedInTheirOwnSlotWhenTheyCome() throws {
        var sessions = 0
        receive("720p", ["s0.ts", "s3.ts"])
        receive("720p", ["s3.ts"], from: 3)
        let live = try list("720p", playlist(["s0.ts", "s1.ts", "s2.ts", "s3.ts"], gaps: ["s1.ts", "s2.ts"]), sessions: &sessions).get()
        #expect(live.map(\.slot) == [40, 43])
        receive("720p", ["s1.ts"], from: 1)
        let backlog = try list("720p", playlist(["s0.ts", "s1.ts", "s2.ts", "s3.ts"], gaps: ["s2.ts"]), sessions: &sessions).get()
        #expect(backlog.map(\.slot) == [41], "a backlog segment goes where it belongs")
        #expect(backlog.first?.startTime == 82)
        #expect(sessions == 1)
    }

    @Test mutating func aFreshLedgerSkipsWhatAnEarlierProcessListedAndStartsAtTheFirstReceivedSegment() throws {
        var sessions = 0
        receive("720p", ["s57.ts"], from: 57)
        let listed = try list("720p", playlist((0...57).map { "s\($0).ts" }), sessions: &sessions).get()
        #expect(listed.map(\.name) == ["s57.ts"])
        #expect(listed.map(\.slot) == [40])
        // With nothing received, such a playlist lists nothing and refuses nothing.
        var fresh = IngestLedger(settings: ledger.settings)
        #expect(try fresh.playlistReceived(variant: "360p", text: playlist(["s0.ts"]), now: now) { 1 }.get().isEmpty)
    }
}

/// Title, description and keywords as `sideline push` (JSON) and a field app (three-part text) send them.
@Suite struct StreamMetadataTests {
    @Test func jsonWithAnyOfTheThreeFields() throws {
        let metadata = try StreamMetadata.parse(Array(#"{"title": "Roof camera", "keywords": "tactical, wide"}"#.utf8)).get()
        #expect(metadata == StreamMetadata(title: "Roof camera", description: "", keywords: "tactical, wide"))
    }

    @Test func theFieldAppsTextFile() throws {
        let metadata = try StreamMetadata.parse(Array("Stand camera\nfans, north\nThe north stand,\nseen from row 12\n".utf8)).get()
        #expect(metadata == StreamMetadata(title: "Stand camera", description: "The north stand, seen from row 12", keywords: "fans, north"))
        #expect(try StreamMetadata.parse(Array("Only a title".utf8)).get() == StreamMetadata(title: "Only a title"))
    }

    /// `sideline push`: a metadata file's fields, each replaced by the flag given; nothing
    /// given, nothing sent; the flags checked like an upload.
    @Test func pushFlagsOverAMetadataFile() throws {
        let file = Array("Stand camera\nfans, north\nThe north stand\n".utf8)
        #expect(try StreamMetadata.combining(file: file, title: "North stand", description: nil, keywords: nil).get()
            == StreamMetadata(title: "North stand", description: "The north stand", keywords: "fans, north"))
        #expect(try StreamMetadata.combining(file: nil, title: nil, description: nil, keywords: "wide").get() == StreamMetadata(keywords: "wide"))
        #expect(try StreamMetadata.combining(file: nil, title: nil, description: nil, keywords: nil).get() == nil)
        #expect(StreamMetadata.combining(file: nil, title: "The \"final\"", description: nil, keywords: nil) == .failure(.unquotable(field: "title")))
    }

    @Test func whatCannotStandInAPlaylistAttributeIsRefused() {
        #expect(StreamMetadata.parse(Array(#"{"title": "The \"final\""}"#.utf8)) == .failure(.unquotable(field: "title")))
        #expect(StreamMetadata.parse(Array("{\"keywords\": \"a\\u0007b\"}".utf8)) == .failure(.unquotable(field: "keywords")))
        #expect(StreamMetadata.parse(Array(("{\"description\": \"" + String(repeating: "x", count: 1_001) + "\"}").utf8)) == .failure(.tooLong(field: "description", limit: 1_000)))
        guard case .failure(.unreadable) = StreamMetadata.parse(Array(#"{"title": 5}"#.utf8)) else {
            Issue.record("a title that is not a string was taken")
            return
        }
        guard case .failure(.unreadable) = StreamMetadata.parse([0xFF, 0xFE]) else {
            Issue.record("bytes that are not UTF-8 were taken")
            return
        }
    }
}
