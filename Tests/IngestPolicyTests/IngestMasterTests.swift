import HLSPlaylist
import IngestPolicy
import OriginPolicy
import Testing

/// What a pushed master may name, as rows: the master's variant URIs against the configured
/// ladder, and what the ingest takes from it (or the 400 and what its reason names).
@Suite struct IngestMasterTests {
    static let ladder = ["1080p", "720p", "360p"]

    static func master(_ uris: [String], formats: Bool = true) -> MultivariantPlaylist {
        MultivariantPlaylist(variants: uris.map {
            VariantStream(uri: $0, bandwidth: 1_000_000, codecs: formats ? ["avc1.64001f", "mp4a.40.2"] : [],
                          resolution: formats ? .init(width: 1280, height: 720) : nil, frameRate: nil)
        })
    }

    @Test(arguments: [
        // Every rung: nothing left out.
        (["1080p/index.m3u8", "720p/index.m3u8", "360p/index.m3u8"], ["1080p", "720p", "360p"], []),
        // The lowest dropped on a weak uplink: left out, filled by the server.
        (["1080p/index.m3u8", "720p/index.m3u8"], ["1080p", "720p"], ["360p"]),
        // Only the best rung.
        (["1080p/index.m3u8"], ["1080p"], ["720p", "360p"]),
        // The master's order is kept for what it lists; the ladder's order for what it left out.
        (["360p/index.m3u8", "1080p/index.m3u8"], ["360p", "1080p"], ["720p"]),
    ] as [([String], [String], [String])])
    func takenRungs(uris: [String], pushed: [String], notPushed: [String]) throws {
        let taken = try IngestMaster.accept(Self.master(uris), ladder: Self.ladder, playlist: "index.m3u8").get()
        #expect(taken == IngestMaster(pushed: pushed, notPushed: notPushed))
        #expect(taken.receipt.hasPrefix("master taken: \(pushed.joined(separator: ", "))"))
        #expect(taken.receipt.contains("not pushed") == !notPushed.isEmpty)
    }

    @Test(arguments: [
        // A rung the config does not name: the configured ladder wins, whatever the encoder sends.
        (["1080p/index.m3u8", "4k/index.m3u8"], "4k/index.m3u8"),
        // A URI of another shape than <variant>/index.m3u8.
        (["1080p/index.m3u8", "1080p/other.m3u8"], "1080p/other.m3u8"),
        (["https://elsewhere.example/1080p/index.m3u8"], "https://elsewhere.example/1080p/index.m3u8"),
        (["1080p/index.m3u8?x=1"], "1080p/index.m3u8?x=1"),
        (["../1080p/index.m3u8"], "../1080p/index.m3u8"),
        (["1080p/iframes.m3u8"], "1080p/iframes.m3u8"),
    ] as [([String], String)])
    func unknownVariantsAreRefused(uris: [String], named: String) {
        guard case let .failure(refusal) = IngestMaster.accept(Self.master(uris), ladder: Self.ladder, playlist: "index.m3u8") else {
            Issue.record("\(uris) taken")
            return
        }
        #expect(refusal.status == 400)
        #expect(refusal.reason.contains(named) && refusal.reason.contains("1080p, 720p, 360p"))
    }

    @Test func aMasterWithNoVariantIsRefused() {
        guard case let .failure(refusal) = IngestMaster.accept(Self.master([]), ladder: Self.ladder, playlist: "index.m3u8") else {
            Issue.record("an empty master taken")
            return
        }
        #expect(refusal.status == 400 && refusal.reason.contains("none of this stream's variants"))
    }

    @Test func bytesThatAreNoMasterAreRefused() {
        #expect(throws: Refusal.self) { try IngestMaster.parse([0xFF, 0xFE]).get() }
        #expect(throws: Refusal.self) { try IngestMaster.parse(Array("not a playlist".utf8)).get() }
        let rendered = Self.master(["720p/index.m3u8"]).render()
        #expect((try? IngestMaster.parse(Array(rendered.utf8)).get())?.variants.map(\.uri) == ["720p/index.m3u8"])
    }

    @Test func formatsAreTakenForLadderRungsThatSayBoth() {
        var master = Self.master(["1080p/index.m3u8", "4k/index.m3u8"])
        master.variants.append(VariantStream(uri: "360p/index.m3u8", bandwidth: 1, codecs: [], resolution: nil, frameRate: nil))
        master.variants[0].frameRate = 50
        let formats = IngestMaster.formats(in: master, ladder: Self.ladder, playlist: "index.m3u8", frameRate: 25)
        // 4k is not a rung; 360p says neither CODECS nor RESOLUTION.
        #expect(formats.map(\.variant) == ["1080p"])
        #expect(formats.first?.format == VariantFormat(codecs: ["avc1.64001f", "mp4a.40.2"], width: 1280, height: 720, frameRate: 50))
        master.variants[0].frameRate = nil
        #expect(IngestMaster.formats(in: master, ladder: Self.ladder, playlist: "index.m3u8", frameRate: 25).first?.format.frameRate == 25)
    }
}
