import Foundation
import HLSPlaylist
import Testing

/// Playlists an ingest or a mirror may be sent by someone who means harm: every number that
/// would overflow, trap in a conversion or render as garbage is refused where it is read, and
/// what renders numbers never traps on one that got through (issue 26: `EXT-X-MEDIA-SEQUENCE`
/// and `EXT-X-BYTERANGE` of Int64.max, an EXTINF of 1e300 and a FRAME-RATE of nan each stopped
/// the server).
@Suite struct HostilePlaylistTests {
    static func media(_ lines: String) -> String { "#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + lines }

    @Test(arguments: [
        ("#EXT-X-MEDIA-SEQUENCE:9223372036854775807\n", "#EXT-X-MEDIA-SEQUENCE", "9223372036854775807", 3),
        ("#EXT-X-DISCONTINUITY-SEQUENCE:9223372036854775807\n", "#EXT-X-DISCONTINUITY-SEQUENCE", "9223372036854775807", 3),
        ("#EXTINF:1e300,\na.ts\n", "#EXTINF", "1e300,", 3),
        ("#EXTINF:nan,\na.ts\n", "#EXTINF", "nan,", 3),
        ("#EXTINF:inf,\na.ts\n", "#EXTINF", "inf,", 3),
        ("#EXTINF:2,\n#EXT-X-BYTERANGE:9223372036854775807@1\na.ts\n", "#EXT-X-BYTERANGE", "9223372036854775807@1", 4),
        ("#EXTINF:2,\n#EXT-X-BYTERANGE:1@9223372036854775807\na.ts\n", "#EXT-X-BYTERANGE", "1@9223372036854775807", 4),
        ("#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2026-11-21T15:00:00.000Z\",DURATION=nan\n", "#EXT-X-DATERANGE",
         "ID=\"a\",START-DATE=\"2026-11-21T15:00:00.000Z\",DURATION=nan", 3),
        ("#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2026-11-21T15:00:00.000Z\",DURATION=1e300\n", "#EXT-X-DATERANGE",
         "ID=\"a\",START-DATE=\"2026-11-21T15:00:00.000Z\",DURATION=1e300", 3),
        ("#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=1e300\n", "#EXT-X-SERVER-CONTROL", "CAN-SKIP-UNTIL=1e300", 3),
    ])
    func numbersThatCannotBeCarriedAreRefusedWithTheirLine(lines: String, tag: String, value: String, line: Int) {
        #expect(throws: PlaylistParseError.invalidValue(tag: tag, value: value, line: line)) { try MediaPlaylist.parse(Self.media(lines)) }
    }

    @Test func aTargetDurationBeyondADayIsRefused() {
        #expect(throws: PlaylistParseError.invalidValue(tag: "#EXT-X-TARGETDURATION", value: "9223372036854775807", line: 2)) {
            try MediaPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:9223372036854775807\n")
        }
    }

    /// A byte range without an offset follows the previous one of the same URI (§4.3.2.2): the
    /// sum of two ranges each within bounds must not overflow either.
    @Test func rangesThatFollowOnAreAddedWithoutOverflow() throws {
        let limit = PlaylistLimits.largestNumber
        let following = try MediaPlaylist.parse(Self.media("#EXTINF:2,\n#EXT-X-BYTERANGE:10@0\na.ts\n#EXTINF:2,\n#EXT-X-BYTERANGE:20\na.ts\n"))
        #expect(following.segments[1].byteRange == MediaSegment.ByteRange(length: 20, offset: 10))
        let beyond = Self.media("#EXTINF:2,\n#EXT-X-BYTERANGE:\(limit)@\(limit)\na.ts\n#EXTINF:2,\n#EXT-X-BYTERANGE:\(limit)\na.ts\n")
        #expect(throws: PlaylistParseError.invalidValue(tag: "#EXT-X-BYTERANGE", value: "\(limit) (following on at byte \(2 * limit))", line: 7)) {
            try MediaPlaylist.parse(beyond)
        }
        // A thousand ranges that each follow on would pass Int64.max if they were just added up.
        let chained = Self.media(String(repeating: "#EXTINF:2,\n#EXT-X-BYTERANGE:\(limit)\na.ts\n", count: 1_100))
        #expect(throws: (any Error).self) { try MediaPlaylist.parse(chained) }
    }

    @Test func theBoundsThemselvesAreTaken() throws {
        let limit = PlaylistLimits.largestNumber
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:86400\n#EXT-X-MEDIA-SEQUENCE:\(limit)\n#EXTINF:86400,\na.ts\n"
        let playlist = try MediaPlaylist.parse(text)
        #expect(playlist.mediaSequence == limit)
        #expect(playlist.segments.first?.duration == 86_400)
        #expect(playlist.render().contains("#EXTINF:86400.000000,"))
    }

    @Test(arguments: ["FRAME-RATE=nan", "FRAME-RATE=inf", "FRAME-RATE=1e300", "FRAME-RATE=-25", "BANDWIDTH=-1", "BANDWIDTH=9223372036854775807",
                      "AVERAGE-BANDWIDTH=-5", "RESOLUTION=9223372036854775807x1", "RESOLUTION=-1x720"])
    func aMasterWithAnUnusableNumberIsRefused(attribute: String) {
        let text = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000,\(attribute)\n720p/index.m3u8\n"
        #expect(throws: (any Error).self) { try MultivariantPlaylist.parse(text) }
    }

    @Test(arguments: ["nan", "inf", "-inf", "1e300"])
    func aMasterStartOffsetThatCannotBeRenderedIsRefused(offset: String) {
        #expect(throws: PlaylistParseError.invalidValue(tag: "#EXT-X-START", value: "TIME-OFFSET=\(offset)", line: 2)) {
            try MultivariantPlaylist.parse("#EXTM3U\n#EXT-X-START:TIME-OFFSET=\(offset)\n")
        }
    }

    @Test func anIFrameStreamWithANegativeBandwidthIsRefused() {
        #expect(throws: (any Error).self) { try MultivariantPlaylist.parse("#EXTM3U\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=-1,URI=\"a/iframes.m3u8\"\n") }
    }

    /// What renders a number (a model built in code, not parsed) answers every Double: never a
    /// trap, never a locale's comma, never an exponent a player cannot read.
    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e300, -1e300, -0.0, Double(Int64.max), .greatestFiniteMagnitude, .leastNonzeroMagnitude])
    func decimalsRenderEveryDouble(value: Double) {
        let fixed = DecimalFormat.fixed(value, places: 6)
        #expect(fixed.allSatisfy { $0.isNumber || $0 == "." || $0 == "-" }, "\(fixed)")
        #expect(!DecimalFormat.compact(value).isEmpty)
        #expect(!ProgramDateTime.format(Date(timeIntervalSince1970: value)).isEmpty)
    }

    /// Found by the fuzzer (Tests/Fixtures/fuzz/playlist-render/crash-dates-going-back.m3u8): a
    /// pusher's or an upstream's program date-times that go back made the recording's span an
    /// inverted range, a trap when an analyst adds a marker.
    @Test func programDateTimesThatGoBackGiveASpanNotATrap() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PROGRAM-DATE-TIME:8140-11-21T19:00:00.000Z\n#EXTINF:2,\na.ts\n"
            + "#EXT-X-PROGRAM-DATE-TIME:2026-11-21T19:00:02.000Z\n#EXTINF:2,\nb.ts\n"
        let playlist = try MediaPlaylist.parse(text)
        let span = try #require(PlaylistTimes(playlist).dateSpan)
        #expect(span.lowerBound <= span.upperBound)
        _ = [span.lowerBound, span.upperBound].map(PlaylistTimes(playlist).offset(of:))
        _ = playlist.vodRendition(covering: TimeWindow(start: .date(span.lowerBound), end: .date(span.upperBound)))
    }

    @Test func aFrameRateOfNaNBuiltInCodeRendersAsNoFrameRate() {
        let master = MultivariantPlaylist(variants: [VariantStream(uri: "720p/index.m3u8", bandwidth: 1, codecs: [], frameRate: .nan)])
        #expect(!master.render().contains("FRAME-RATE"))
    }
}
