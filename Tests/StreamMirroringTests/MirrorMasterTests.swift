import HLSPlaylist
import StreamMirroring
import Testing

struct MirrorMasterTests {
    let upstream = MultivariantPlaylist(
        variants: [
            VariantStream(uri: "720p/index.m3u8", bandwidth: 3_300_000, codecs: ["avc1.64001f"]),
            VariantStream(uri: "360p/index.m3u8", bandwidth: 900_000, codecs: ["avc1.4d401e"]),
            // A backup the upstream lists (redundant stream): another server, not a variant.
            VariantStream(uri: "http://10.0.0.9:8081/live/main/720p/index.m3u8", bandwidth: 3_300_000, codecs: ["avc1.64001f"]),
        ],
        iFrameStreams: [IFrameStream(uri: "720p/iframes.m3u8", bandwidth: 300_000, codecs: ["avc1.64001f"], resolution: nil),
                        IFrameStream(uri: "360p/iframes.m3u8", bandwidth: 90_000, codecs: ["avc1.4d401e"], resolution: nil)]
    )

    @Test func followsEveryVariantOfItsOwnAndNoBackup() throws {
        let selection = try MirrorMaster.select(upstream, variants: nil)
        #expect(selection.variants == ["720p", "360p"])
        #expect(selection.master.variants.map(\.uri) == ["720p/index.m3u8", "360p/index.m3u8"])
        #expect(selection.iFrameVariants == ["720p", "360p"])
    }

    @Test func followsTheChosenVariantsOnly() throws {
        let selection = try MirrorMaster.select(upstream, variants: ["360p"])
        #expect(selection.variants == ["360p"])
        #expect(selection.master.iFrameStreams.map(\.uri) == ["360p/iframes.m3u8"])
    }

    @Test func refusesWhatItCannotFollowWithTheReason() {
        #expect(throws: MirrorMaster.Rejection(description: "the upstream has no variant '1080p'; it has 720p, 360p")) {
            try MirrorMaster.select(upstream, variants: ["1080p"])
        }
        let foreign = MultivariantPlaylist(variants: [VariantStream(uri: "chunklist_b900000.m3u8", bandwidth: 900_000, codecs: [])])
        #expect(throws: MirrorMaster.Rejection.self) { try MirrorMaster.select(foreign, variants: nil) }
        #expect(throws: MirrorMaster.Rejection(description: "the upstream's master lists no variant yet")) {
            try MirrorMaster.select(MultivariantPlaylist(variants: []), variants: nil)
        }
    }
}
