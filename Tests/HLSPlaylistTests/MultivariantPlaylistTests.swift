import HLSPlaylist
import Testing

@Suite struct MultivariantPlaylistTests {
    @Test func oneVariantMatchesGolden() throws {
        let playlist = MultivariantPlaylist(variants: [
            VariantStream(uri: "720p/index.m3u8", bandwidth: 3_770_801, averageBandwidth: 3_440_801,
                          codecs: ["avc1.64001f", "mp4a.40.2"], resolution: .init(width: 1280, height: 720), frameRate: 30),
        ])
        #expect(playlist.render() == (try golden("master-one-variant.m3u8")))
    }

    @Test func optionalAttributesAreLeftOutWhenUnknown() throws {
        let playlist = MultivariantPlaylist(variants: [
            VariantStream(uri: "720p/index.m3u8", bandwidth: 3_770_801, averageBandwidth: 3_440_801,
                          codecs: ["avc1.64001f", "mp4a.40.2"], resolution: .init(width: 1280, height: 720), frameRate: 30000.0 / 1001),
            VariantStream(uri: "360p/index.m3u8", bandwidth: 1_100_000, codecs: ["avc1.4d401e"],
                          resolution: .init(width: 640, height: 360), frameRate: 29.97),
        ])
        #expect(playlist.render() == (try golden("master-two-variants.m3u8")))
    }
}

@Suite struct CodecStringTests {
    @Test(arguments: [
        ([0x67, 0x64, 0x00, 0x1F] as [UInt8], "avc1.64001f"),   // High, level 3.1
        ([0x67, 0x4D, 0x40, 0x1E], "avc1.4d401e"),             // Main, constraint_set1, level 3.0
        ([0x27, 0x42, 0xC0, 0x0D], "avc1.42c00d"),             // Constrained Baseline, nal_ref_idc 1
    ])
    func avcStringComesFromTheSPS(sps: [UInt8], expected: String) {
        #expect(AVCCodecString.make(fromSPS: sps + [0xAC, 0xD9]) == expected)
    }

    @Test func nonSPSUnitsGiveNoString() {
        #expect(AVCCodecString.make(fromSPS: [0x68, 0xEE, 0x3C, 0x80]) == nil) // a PPS
        #expect(AVCCodecString.make(fromSPS: [0x67, 0x64]) == nil)              // truncated
    }
}

@Suite struct TargetDurationTests {
    @Test(arguments: [
        (2.0, 30.0, 2), (2.0, 29.97, 2), (6.0, 25.0, 6), (0.5, 30.0, 1), (2.5, 24.0, 3), (1.0, 1.0, 2),
    ])
    func targetDurationBoundsEverySegment(segment: Double, fps: Double, expected: Int) {
        #expect(TargetDuration.forSegments(ofDuration: segment, frameRate: fps) == expected)
    }
}

@Suite struct ProgramDateTimeTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (1_795_287_600.125, "2026-11-21T19:00:00.125Z"),
        (951_782_400.0, "2000-02-29T00:00:00.000Z"),
        (-1.5, "1969-12-31T23:59:58.500Z"),
    ])
    func formatsInUTCWithMilliseconds(seconds: Double, text: String) throws {
        let value = Date(timeIntervalSince1970: seconds)
        #expect(ProgramDateTime.format(value) == text)
        let parsed = try #require(ProgramDateTime.parse(Substring(text)))
        #expect(abs(parsed.timeIntervalSince1970 - seconds) < 0.0005)
    }

    @Test func parsesOffsetsAndRejectsJunk() throws {
        let withOffset = try #require(ProgramDateTime.parse("2026-11-21T20:00:00.000+01:00"))
        #expect(ProgramDateTime.format(withOffset) == "2026-11-21T19:00:00.000Z")
        #expect(ProgramDateTime.parse("2026-11-21 20:00:00Z") == nil)
        #expect(ProgramDateTime.parse("2026-13-21T20:00:00Z") == nil)
        #expect(ProgramDateTime.parse("2026-11-21T20:00:00") == nil)
    }
}

import Foundation

/// A master as the VOD master of a window: made from the value, not by editing its text.
@Suite struct MasterVODRenditionTests {
    static let master = MultivariantPlaylist(variants: [
        VariantStream(uri: "720p/index.m3u8", bandwidth: 3_000_000, codecs: ["avc1.64001f"], resolution: .init(width: 1280, height: 720), frameRate: 30),
        VariantStream(uri: "http://10.0.0.3:8081/live/main/720p/index.m3u8", bandwidth: 3_000_000, codecs: ["avc1.64001f"], resolution: .init(width: 1280, height: 720), frameRate: 30),
    ], iFrameStreams: [IFrameStream(uri: "720p/iframes.m3u8", bandwidth: 300_000, codecs: ["avc1.64001f"], resolution: nil)])

    @Test func theWindowGoesOnEveryURIAndOtherServersStayOut() {
        let vod = Self.master.vodRendition(carrying: "start=2&end=4")
        #expect(vod.variants.map(\.uri) == ["720p/index.m3u8?start=2&end=4"])
        #expect(vod.iFrameStreams.map(\.uri) == ["720p/iframes.m3u8?start=2&end=4"])
        #expect(vod.render().contains("URI=\"720p/iframes.m3u8?start=2&end=4\""))
        // The whole recording: the URIs as they are, the backup left out all the same.
        #expect(Self.master.vodRendition(carrying: "").variants.map(\.uri) == ["720p/index.m3u8"])
    }
}
