import HLSPlaylist
import SidelineCore
import StreamPublishing
import Testing

@Suite struct MasterAssemblyTests {
    let assembly = MasterAssembly(segmentDuration: 2, mediaPlaylistURI: { "\($0)/index.m3u8" }, iFramePlaylistURI: { "\($0)/iframes.m3u8" })
    static let rung = Rung(name: "360p", width: 640, height: 360, bitrate: 600_000, maxrate: 900_000, bufsize: 1_200_000, preset: "veryfast", profile: "main")
    static let rates = RungRates(rung: rung, audio: .init(bitrate: 128_000, sampleRate: 48_000), frameRate: 30)
    static let format = VariantFormat(codecs: ["avc1.4d401e", "mp4a.40.2"], width: 640, height: 360, frameRate: 30)

    @Test func listsOnlyTheListingInLadderOrder() throws {
        let rungs = [MasterAssembly.Rung(name: "360p", rates: Self.rates, format: Self.format), MasterAssembly.Rung(name: "180p", rates: Self.rates, format: Self.format)]
        let master = try #require(assembly.playlist(rungs: rungs, listing: ["180p"]))
        #expect(master.variants.map(\.uri) == ["180p/index.m3u8"])
        #expect(master.iFrameStreams.map(\.uri) == ["180p/iframes.m3u8"])
        #expect(assembly.playlist(rungs: rungs, listing: ["360p", "180p"])?.variants.map(\.uri) == ["360p/index.m3u8", "180p/index.m3u8"])
    }

    /// RFC 8216 §6.3.3: each backup repeats a variant's EXT-X-STREAM-INF with another URI, after
    /// every primary; I-frame playlists are not repeated.
    @Test func backupsRepeatEachVariantAfterThePrimaries() throws {
        var assembly = self.assembly
        assembly.backupURIs = { ["http://10.0.0.3:8081/live/main/\($0)/index.m3u8"] }
        let rungs = [MasterAssembly.Rung(name: "360p", rates: Self.rates, format: Self.format), MasterAssembly.Rung(name: "180p", rates: Self.rates, format: Self.format)]
        let master = try #require(assembly.playlist(rungs: rungs, listing: ["360p", "180p"]))
        #expect(master.variants.map(\.uri) == ["360p/index.m3u8", "180p/index.m3u8",
                                               "http://10.0.0.3:8081/live/main/360p/index.m3u8", "http://10.0.0.3:8081/live/main/180p/index.m3u8"])
        var backup = master.variants[2]
        backup.uri = master.variants[0].uri
        #expect(backup == master.variants[0], "the same attributes as its primary")
        #expect(master.iFrameStreams.count == 2)
        let lines = master.render().split(separator: "\n")
        let infs = lines.filter { $0.hasPrefix("#EXT-X-STREAM-INF:") }
        #expect(infs[0] == infs[2] && infs[1] == infs[3])
    }

    /// Two boxes (issue 35): this box's rungs on its pathway, the other box's after them on
    /// its own, mirrors (no pathway) last; the steering manifest named with the initial pathway.
    @Test func aPairListsBothBoxesOnTheirPathways() throws {
        var assembly = self.assembly
        assembly.backupURIs = { ["http://10.0.0.9:8081/live/main/\($0)/index.m3u8"] }
        assembly.pair = .init(own: "standby", other: "primary", otherURI: { "http://10.0.0.2:8080/live/main/\($0)/index.m3u8" }, steeringURI: "steering.json")
        let rungs = [MasterAssembly.Rung(name: "360p", rates: Self.rates, format: Self.format), MasterAssembly.Rung(name: "180p", rates: Self.rates, format: Self.format)]
        let master = try #require(assembly.playlist(rungs: rungs, listing: ["360p", "180p"]))
        #expect(master.variants.map(\.uri) == ["360p/index.m3u8", "180p/index.m3u8",
                                               "http://10.0.0.2:8080/live/main/360p/index.m3u8", "http://10.0.0.2:8080/live/main/180p/index.m3u8",
                                               "http://10.0.0.9:8081/live/main/360p/index.m3u8", "http://10.0.0.9:8081/live/main/180p/index.m3u8"])
        #expect(master.variants.map(\.pathwayID) == ["standby", "standby", "primary", "primary", nil, nil])
        #expect(master.iFrameStreams.map(\.pathwayID) == ["standby", "standby"])
        #expect(master.contentSteering == ContentSteering(serverURI: "steering.json", pathwayID: "standby"))
        assembly.pair?.steeringURI = nil
        #expect(try #require(assembly.playlist(rungs: rungs, listing: ["360p"])).contentSteering == nil, "pathways without a manifest")
    }

    /// Served: what the core lists (a failed variant left out under `on_variant_failure: gap`);
    /// recorded: every rung, so a restart lists them all again.
    @Test func theServedMasterFollowsTheListingAndTheRecordedOneListsEveryRung() throws {
        let rungs = [MasterAssembly.Rung(name: "360p", rates: Self.rates, format: Self.format), MasterAssembly.Rung(name: "180p", rates: Self.rates, format: Self.format)]
        let masters = try #require(assembly.masters(rungs: rungs, listing: ["180p"]))
        #expect(masters.served.variants.map(\.uri) == ["180p/index.m3u8"])
        #expect(masters.recorded?.variants.map(\.uri) == ["360p/index.m3u8", "180p/index.m3u8"])
        let unknown = [MasterAssembly.Rung(name: "360p", rates: Self.rates, format: nil), rungs[1]]
        #expect(assembly.masters(rungs: unknown, listing: ["180p"])?.recorded == nil, "served, but not recorded without every format")
        #expect(assembly.masters(rungs: unknown, listing: ["360p", "180p"]) == nil)
    }

    @Test func noMasterWhileAListedRungsFormatIsUnknown() {
        let rungs = [MasterAssembly.Rung(name: "360p", rates: Self.rates, format: nil)]
        #expect(assembly.playlist(rungs: rungs, listing: ["360p"]) == nil)
    }

    /// BANDWIDTH bounds the TS bit rate: the video's maxrate with the VBV burst allowance (10%),
    /// the audio, x 188/184, plus one packet per video frame, per AAC frame and 20 PSI packets
    /// a second.
    @Test func bandwidthCountsTransportOverhead() {
        let packets = 30.0 + 48_000.0 / 1024 + 20
        let expected = Int(((990_000.0 + 128_000) * 188 / 184 + packets * 188 * 8).rounded(.up))
        #expect(Bandwidth.peak(Self.rates) == expected)
        #expect(Bandwidth.average(Self.rates) < Bandwidth.peak(Self.rates))
        let silent = RungRates(rung: Self.rung, audio: nil, frameRate: 30)
        let payload: Double = 990_000.0 * 188 / 184
        let overhead: Double = 50 * 188 * 8
        #expect(Bandwidth.peak(silent) == Int((payload + overhead).rounded(.up)))
    }
}

@Suite struct BandwidthOverrunTests {
    @Test func aSegmentOverItsRungsBandwidthIsReportedWithItsRate() {
        // 500,000 bytes in 2 s is 2,000,000 bit/s.
        #expect(Bandwidth.overrun(bytes: 500_000, duration: 2, advertised: 1_999_999) == 2_000_000)
        #expect(Bandwidth.overrun(bytes: 500_000, duration: 2, advertised: 2_000_000) == nil, "exactly at BANDWIDTH is within it")
        #expect(Bandwidth.overrun(bytes: 500_000, duration: 0, advertised: 1) == nil, "no duration, nothing to measure")
    }
}
