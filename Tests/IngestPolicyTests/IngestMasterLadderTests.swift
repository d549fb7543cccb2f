import HLSPlaylist
import IngestPolicy
import OriginPolicy
import Testing

/// The ladder a pushed stream with no configured ladder takes from its encoder's master, as
/// rows: what is taken from a 360p/180p master, and what hostile masters are refused for.
@Suite struct IngestMasterLadderTests {
    static func variant(_ uri: String, _ width: Int = 640, _ height: Int = 360, bandwidth: Int = 800_000,
                        codecs: [String] = ["avc1.64001e", "mp4a.40.2"], frameRate: Double? = 30) -> VariantStream {
        VariantStream(uri: uri, bandwidth: bandwidth, codecs: codecs, resolution: .init(width: width, height: height), frameRate: frameRate)
    }

    static let phone = MultivariantPlaylist(variants: [
        variant("360p/index.m3u8", 640, 360, bandwidth: 900_000, frameRate: 29.97),
        variant("180p/index.m3u8", 320, 180, bandwidth: 300_000, codecs: ["avc1.42c00d", "mp4a.40.2"], frameRate: nil),
    ])

    @Test func aPhonesLadderIsTakenAsTheMasterStatesIt() throws {
        let rungs = try IngestMaster.declaredLadder(Self.phone, playlist: "index.m3u8").get()
        #expect(rungs == [
            DeclaredRung(name: "360p", width: 640, height: 360, bandwidth: 900_000, codecs: ["avc1.64001e", "mp4a.40.2"], frameRate: 29.97),
            DeclaredRung(name: "180p", width: 320, height: 180, bandwidth: 300_000, codecs: ["avc1.42c00d", "mp4a.40.2"], frameRate: nil),
        ])
        let choice = try IngestMaster.ladder(for: Self.phone, configured: nil, kept: nil, playlist: "index.m3u8").get()
        #expect(choice == .declared(rungs))
        // The master is then accepted against its own ladder: nothing left out.
        let taken = try IngestMaster.accept(Self.phone, ladder: choice.names, playlist: "index.m3u8").get()
        #expect(taken == IngestMaster(pushed: ["360p", "180p"], notPushed: []))
    }

    @Test(arguments: [
        // Too many rungs.
        ((0..<9).map { variant("r\($0)/index.m3u8") }, "at most 8"),
        // Absurd resolutions.
        ([variant("big/index.m3u8", 100_000, 360)], "100000x360"),
        ([variant("tiny/index.m3u8", 8, 8)], "8x8"),
        ([variant("odd/index.m3u8", 641, 360)], "641x360"),
        ([VariantStream(uri: "none/index.m3u8", bandwidth: 800_000, codecs: ["avc1.64001e"], resolution: nil)], "RESOLUTION"),
        // Absurd bandwidths.
        ([variant("huge/index.m3u8", bandwidth: Int.max)], "BANDWIDTH"),
        ([variant("zero/index.m3u8", bandwidth: 0)], "BANDWIDTH"),
        ([variant("fast/index.m3u8", frameRate: 1_000)], "FRAME-RATE"),
        ([variant("nan/index.m3u8", frameRate: .nan)], "FRAME-RATE"),
        // Codecs that are not codec strings, or none, or too many.
        ([variant("c/index.m3u8", codecs: [])], "CODECS"),
        ([variant("c/index.m3u8", codecs: ["avc1\"/../x"])], "CODECS"),
        ([variant("c/index.m3u8", codecs: ["avc1.64001f", "ac 3"])], "CODECS"),
        ([variant("c/index.m3u8", codecs: Array(repeating: "mp4a.40.2", count: 5))], "CODECS"),
        // Names that are not safe path components.
        ([variant("../index.m3u8")], "is not <variant>/index.m3u8"),
        ([variant(".hidden/index.m3u8")], "is not <variant>/index.m3u8"),
        ([variant("-rm/index.m3u8")], "is not <variant>/index.m3u8"),
        ([variant("a b/index.m3u8")], "is not <variant>/index.m3u8"),
        ([variant("été/index.m3u8")], "is not <variant>/index.m3u8"),
        ([variant("\(String(repeating: "a", count: 65))/index.m3u8")], "is not <variant>/index.m3u8"),
        ([variant("a/b/index.m3u8")], "is not <variant>/index.m3u8"),
        ([variant("https://elsewhere.example/360p/index.m3u8")], "is not <variant>/index.m3u8"),
        // More pixels a second than one 2160p60 rung (issue 33): eight 4320p120 rungs, two
        // 2160p60 ones, and one 2160p without FRAME-RATE beside a 1080p one (counted at 60).
        ((0..<8).map { variant("r\($0)/index.m3u8", 7680, 4320, frameRate: 120) }, "million pixels a second"),
        ([variant("a/index.m3u8", 3840, 2160, frameRate: 60), variant("b/index.m3u8", 3840, 2160, frameRate: 60)], "million pixels a second"),
        ([variant("a/index.m3u8", 3840, 2160, frameRate: nil), variant("b/index.m3u8", 1920, 1080, frameRate: 30)], "million pixels a second"),
        // Names the server keeps beside a stream's variants (issue 33): a rung named so would
        // be a folder where the master, the ingest's session or the markers are written.
        ([variant("master.m3u8/index.m3u8")], "none of the names the server keeps"),
        ([variant("ingest/index.m3u8")], "none of the names the server keeps"),
        ([variant("Unplaced/index.m3u8")], "none of the names the server keeps"),
        ([variant("timeline.json/index.m3u8")], "none of the names the server keeps"),
        ([variant("markers.json/index.m3u8")], "none of the names the server keeps"),
        ([variant("removed/index.m3u8")], "none of the names the server keeps"),
        // Duplicate names.
        ([variant("360p/index.m3u8"), variant("360p/index.m3u8", 320, 180)], "listed twice"),
        // Twice in all but case: one folder on a disk that folds case.
        ([variant("hi/index.m3u8"), variant("HI/index.m3u8", 320, 180)], "listed twice"),
        // A trailing dot, which FAT and exFAT drop.
        ([variant("ingest./index.m3u8")], "is not <variant>/index.m3u8"),
        // No rung at all.
        ([], "no variant"),
    ] as [([VariantStream], String)])
    func refusedLadders(variants: [VariantStream], reason: String) {
        let master = MultivariantPlaylist(variants: variants)
        guard case let .failure(refusal) = IngestMaster.ladder(for: master, configured: nil, kept: nil, playlist: "index.m3u8") else {
            Issue.record("taken: \(variants.map(\.uri))")
            return
        }
        #expect(refusal.status == 400)
        #expect(refusal.reason.contains(reason), "\(refusal.reason)")
    }

    @Test func aConfiguredLadderWinsAndStillRefusesAStranger() throws {
        let configured = ["720p", "540p", "360p"]
        let choice = try IngestMaster.ladder(for: Self.phone, configured: configured, kept: nil, playlist: "index.m3u8").get()
        #expect(choice == .configured(configured))
        guard case let .failure(refusal) = IngestMaster.accept(Self.phone, ladder: choice.names, playlist: "index.m3u8") else {
            Issue.record("180p taken against a configured ladder")
            return
        }
        #expect(refusal.reason.contains("180p/index.m3u8"))
        // Even a master that would be refused as a declaration is held to the configured ladder only.
        let hostile = MultivariantPlaylist(variants: [Self.variant("720p/index.m3u8", 100_000, 360)])
        #expect(try IngestMaster.ladder(for: hostile, configured: configured, kept: nil, playlist: "index.m3u8").get() == .configured(configured))
    }

    @Test func aKeptLadderStaysWhenTheEncoderDropsARungAndChangesWhenItDeclaresAnother() throws {
        let kept = try IngestMaster.declaredLadder(Self.phone, playlist: "index.m3u8").get()
        let dropped = MultivariantPlaylist(variants: [Self.variant("360p/index.m3u8", 640, 360)])
        let choice = try IngestMaster.ladder(for: dropped, configured: nil, kept: kept, playlist: "index.m3u8").get()
        #expect(choice == .kept(kept))
        #expect(try IngestMaster.accept(dropped, ladder: choice.names, playlist: "index.m3u8").get() == IngestMaster(pushed: ["360p"], notPushed: ["180p"]))
        // Within the kept ladder it is held to it as to a configured one: no declaration to check.
        let bare = MultivariantPlaylist(variants: [VariantStream(uri: "180p/index.m3u8", bandwidth: 1, codecs: [])])
        #expect(try IngestMaster.ladder(for: bare, configured: nil, kept: kept, playlist: "index.m3u8").get() == .kept(kept))
        let other = MultivariantPlaylist(variants: [Self.variant("720p/index.m3u8", 1280, 720)])
        #expect(try IngestMaster.ladder(for: other, configured: nil, kept: kept, playlist: "index.m3u8").get().names == ["720p"])
    }

    /// A running stream takes a declared ladder until it holds footage on the one it serves
    /// (its encoder has pushed); after that the first ladder stays, and the 409 says how to start anew.
    @Test(arguments: [false, true])
    func aDeclaredLadderIsTakenUntilTheStreamHoldsFootage(hasFootage: Bool) throws {
        let rungs = try IngestMaster.declaredLadder(Self.phone, playlist: "index.m3u8").get()
        let decided = IngestMaster.takesDeclared(rungs, serving: ["720p", "360p"], hasFootage: hasFootage, streamDirectory: "/srv/sideline/phone")
        switch decided {
        case let .success(taken):
            #expect(!hasFootage && taken == rungs)
        case let .failure(refusal):
            #expect(hasFootage)
            #expect(refusal.status == 409 && refusal.kind == .conflict)
            #expect(refusal.reason.contains("360p, 180p") && refusal.reason.contains("serves 720p, 360p"), "\(refusal.reason)")
            #expect(refusal.reason.contains("move /srv/sideline/phone away"), "\(refusal.reason)")
        }
    }

    /// One 2160p60 rung is the most a ladder may declare; a broadcast ladder fits easily.
    @Test func aLadderUpToOne2160p60RungIsTaken() throws {
        let one = MultivariantPlaylist(variants: [Self.variant("2160p/index.m3u8", 3840, 2160, bandwidth: 40_000_000, frameRate: 60)])
        #expect(try IngestMaster.declaredLadder(one, playlist: "index.m3u8").get().count == 1)
        let broadcast = MultivariantPlaylist(variants: [Self.variant("1080p/index.m3u8", 1920, 1080, frameRate: 60), Self.variant("720p/index.m3u8", 1280, 720, frameRate: 60),
                                                        Self.variant("360p/index.m3u8", 640, 360, frameRate: nil)])
        #expect(try IngestMaster.declaredLadder(broadcast, playlist: "index.m3u8").get().count == 3)
    }

    /// A stream takes a declared ladder once: a master that names other rungs after it, even
    /// before the first segment, is a 409 (each take encodes a stand-in per rung).
    @Test func aSecondDeclaredLadderIsAConflictEvenBeforeFootage() throws {
        let rungs = try IngestMaster.declaredLadder(Self.phone, playlist: "index.m3u8").get()
        guard case let .failure(refusal) = IngestMaster.takesDeclared(rungs, serving: ["720p"], hasFootage: false, tookOne: true, streamDirectory: "/srv/sideline/phone") else {
            Issue.record("a second ladder was taken")
            return
        }
        #expect(refusal.status == 409 && refusal.reason.contains("took it from an earlier master"), "\(refusal.reason)")
    }
}
