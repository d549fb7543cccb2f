import Foundation
import HLSPlaylist
import IngestPolicy
import MPEGTS
import OriginPolicy
import StreamPushing
import Testing

/// What a pushed stream does with each upload, as rows: a segment refused or kept, a playlist
/// refused or listed (and the session kept first), a master held to the ladder, taking a
/// declared one, or refused. Everything `PushedStream` carries out is decided here.
@Suite struct PushedStreamCoreTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let served = [DeclaredRung(name: "720p", width: 1280, height: 720, bandwidth: 3_000_000, codecs: [], frameRate: nil),
                         DeclaredRung(name: "360p", width: 640, height: 360, bandwidth: 800_000, codecs: [], frameRate: nil)]

    static func core(configured: Bool = true, maxPending: Int = 64, declared: [DeclaredRung]? = nil) -> PushedStreamCore {
        let ledger = IngestLedger.Settings(variants: served.map(\.name), segmentDuration: 2, slotStart: { Double($0) * 2 }, timestampOrigin: 126_000)
        let settings = PushedStreamCore.Settings(ledger: ledger, bounds: IngestBounds(maxPendingSegments: maxPending), ladderConfigured: configured, served: served,
                                                 frameRate: 30, streamDirectory: "/srv/sideline/field", playlistName: "index.m3u8")
        return PushedStreamCore(settings: settings, ledger: IngestLedger(settings: ledger), declaredLadder: declared)
    }

    static func segment(_ index: Int = 0, duration: Double = 2, video: Int = PushedSegmentCheck.h264, audio: [Int] = [0x0F]) -> PushedSegmentCheck.Inspection {
        PushedSegmentCheck.Inspection(videoPID: 256, duration: duration, firstPTS: 900_000 + Int64(index) * 180_000, keyframeEnd: 188 * 4,
                                      videoStreamType: video, audioStreamTypes: audio)
    }

    static func playlist(_ names: [String]) -> [UInt8] {
        Array(("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n" + names.map { "#EXTINF:2.000,\n\($0)\n" }.joined()).utf8)
    }

    static func master(_ rungs: [(String, String, String)]) -> MultivariantPlaylist {
        MultivariantPlaylist(variants: rungs.map { name, size, codecs in
            let wh = size.split(separator: "x").compactMap { Int($0) }
            return VariantStream(uri: "\(name)/index.m3u8", bandwidth: 900_000, codecs: codecs.split(separator: ",").map(String.init),
                                 resolution: .init(width: wh[0], height: wh[1]), frameRate: 30)
        })
    }

    /// Keeps `names` of `variant` as the shell would: checked, written, then noted.
    static func keep(_ names: [String], of variant: String = "720p", in core: inout PushedStreamCore) {
        for (index, name) in names.enumerated() {
            let stamp = core.ledger.openShift ?? 0
            #expect(core.segmentUploaded(variant: variant, name: name, inspection: segment(index)) == .keepSegment(variant: variant, name: name, stampedBy: stamp))
            guard case .answer(created: true, _) = core.segmentKept(variant: variant, name: name, inspection: segment(index), stampedBy: stamp) else {
                Issue.record("\(name) not taken")
                return
            }
        }
    }

    func status(_ action: PushedStreamCore.Action?) -> Int? {
        if case let .refuse(refusal) = action { return refusal.status }
        return nil
    }

    func reason(_ action: PushedStreamCore.Action?) -> String {
        if case let .refuse(refusal) = action { return refusal.reason }
        return "\(String(describing: action))"
    }

    // MARK: Segments

    @Test func aSegmentIsKeptThenAnsweredCreatedOnceAndReplacedAfter() {
        var core = Self.core()
        #expect(core.segmentUploaded(variant: "720p", name: "s0.ts", inspection: Self.segment()) == .keepSegment(variant: "720p", name: "s0.ts", stampedBy: 0))
        #expect(core.segmentKept(variant: "720p", name: "s0.ts", inspection: Self.segment(), stampedBy: 0) == .answer(created: true, message: "received s0.ts (2 s); listed once a playlist lists it"))
        #expect(core.segmentKept(variant: "720p", name: "s0.ts", inspection: Self.segment(), stampedBy: 0) == .answer(created: false, message: "received s0.ts (2 s); listed once a playlist lists it"))
        #expect(core.ledger.pending("720p") == ["s0.ts"])
    }

    @Test(arguments: [
        // A stranger of a variant: with a configured ladder, plainly; without, how to declare it.
        (true, "1080p", segment(), 404, "not in this stream's ladder"),
        (false, "1080p", segment(), 404, "upload the master that declares it first"),
        // Longer than a slot.
        (true, "720p", segment(duration: 3.5), 400, "lasts 3.5 s"),
    ] as [(Bool, String, PushedSegmentCheck.Inspection, Int, String)])
    func aSegmentIsRefusedBeforeAnythingIsWritten(configured: Bool, variant: String, inspection: PushedSegmentCheck.Inspection, status: Int, reason: String) {
        let core = Self.core(configured: configured)
        let action = core.segmentUploaded(variant: variant, name: "s0.ts", inspection: inspection)
        #expect(self.status(action) == status, "\(action)")
        #expect(self.reason(action).contains(reason), "\(self.reason(action))")
    }

    @Test func pastThePendingBoundANewNameIsRefusedAndAKeptOneReplaced() {
        var core = Self.core(maxPending: 2)
        Self.keep(["s0.ts", "s1.ts"], in: &core)
        #expect(status(core.segmentUploaded(variant: "360p", name: "s2.ts", inspection: Self.segment(2))) == 503)
        #expect(core.segmentUploaded(variant: "720p", name: "s1.ts", inspection: Self.segment(1)) == .keepSegment(variant: "720p", name: "s1.ts", stampedBy: 0))
    }

    /// A ladder taken before holds its segments to the codecs it declared, from the start.
    @Test func aSegmentItsVariantsDeclaredCodecsCannotCarryIsRefused() {
        let declared = Self.served.map { DeclaredRung(name: $0.name, width: $0.width, height: $0.height, bandwidth: $0.bandwidth, codecs: ["hvc1.1.6.L93.B0", "mp4a.40.2"], frameRate: nil) }
        let core = Self.core(configured: false, declared: declared)
        let action = core.segmentUploaded(variant: "720p", name: "s0.ts", inspection: Self.segment())
        #expect(status(action) == 400 && reason(action).contains("CODECS declares AAC and HEVC, but the segments carry AAC and H.264"), "\(action)")
        #expect(core.segmentUploaded(variant: "720p", name: "s0.ts", inspection: Self.segment(video: PushedSegmentCheck.hevc)) == .keepSegment(variant: "720p", name: "s0.ts", stampedBy: 0))
    }

    /// Written once: a segment that comes while a session is open is kept restamped by that
    /// session's shift, and listed in it goes into the recording as kept (restamp 0); one kept
    /// before its session opened, or for a session an encoder restart ended, is restamped by
    /// what is left.
    @Test func aSegmentOfTheOpenSessionIsKeptStampedAndListedAsKept() {
        var core = Self.core()
        Self.keep(["s0.ts"], in: &core)
        guard case let .publish(_, first)? = core.playlistUploaded(variant: "720p", body: Self.playlist(["s0.ts"]), now: Self.now, startSession: { 40 }).last,
              let shift = core.ledger.openShift else {
            Issue.record("no session opened")
            return
        }
        // Slot 40 starts at 80 s: 126_000 + 80 x 90_000 ticks, less the encoder's first PTS.
        #expect(shift == 126_000 + 80 * 90_000 - 900_000)
        #expect(first.map(\.stamped) == [0] && first.map(\.restamp) == [shift], "kept before the session: restamped whole")
        #expect(core.segmentUploaded(variant: "720p", name: "s1.ts", inspection: Self.segment(1)) == .keepSegment(variant: "720p", name: "s1.ts", stampedBy: shift))
        _ = core.segmentKept(variant: "720p", name: "s1.ts", inspection: Self.segment(1), stampedBy: shift)
        guard case let .publish(_, second)? = core.playlistUploaded(variant: "720p", body: Self.playlist(["s0.ts", "s1.ts"]), now: Self.now, startSession: { 99 }).last else {
            Issue.record("s1 not listed")
            return
        }
        #expect(second.map(\.name) == ["s1.ts"] && second.map(\.restamp) == [0], "stamped for its session: linked as kept")
        #expect(second.first?.shift == shift && second.first?.slot == 41)
    }

    // MARK: Playlists

    @Test func aPlaylistKeepsTheSessionFirstThenPublishesWhatItLists() {
        var core = Self.core()
        Self.keep(["s0.ts", "s1.ts"], in: &core)
        var sessions = 0
        let actions = core.playlistUploaded(variant: "720p", body: Self.playlist(["s0.ts", "s1.ts"]), now: Self.now) {
            sessions += 1
            return 40
        }
        #expect(sessions == 1)
        guard actions.count == 2, case let .keepSession(persisted) = actions[0], case let .publish(variant, listings) = actions[1] else {
            Issue.record("\(actions)")
            return
        }
        #expect(persisted.session?.firstSlot == 40 && persisted.highestListed == ["720p": 1])
        #expect(variant == "720p" && listings.map(\.slot) == [40, 41] && listings.map(\.name) == ["s0.ts", "s1.ts"])
        // The same playlist again: nothing new, and nothing to keep.
        #expect(core.playlistUploaded(variant: "720p", body: Self.playlist(["s0.ts", "s1.ts"]), now: Self.now) { 40 } == [.publish(variant: "720p", [])])
    }

    /// The core asks for a session rather than calling out for one: the first answer to a
    /// playlist that begins one is `.beginSession` alone, with nothing kept or changed, so the
    /// same playlist decided again with the publisher's slot is decided from the same state.
    @Test func aPlaylistThatBeginsASessionAsksForItAndChangesNothing() {
        var core = Self.core()
        Self.keep(["s0.ts", "s1.ts"], in: &core)
        let before = core.ledger.persisted
        #expect(core.playlistUploaded(variant: "720p", body: Self.playlist(["s0.ts", "s1.ts"]), now: Self.now) == [.beginSession])
        #expect(core.ledger.persisted == before && core.ledger.session == nil, "nothing kept before the session's slot is known")
        #expect(core.playlistUploaded(variant: "720p", body: Self.playlist(["s0.ts", "s1.ts"]), now: Self.now) == [.beginSession], "asked again, the same answer")
        let actions = core.playlistUploaded(variant: "720p", body: Self.playlist(["s0.ts", "s1.ts"]), now: Self.now, sessionSlot: 40)
        guard case let .publish(_, listings)? = actions.last else {
            Issue.record("\(actions)")
            return
        }
        #expect(listings.map(\.slot) == [40, 41])
        // Within the session, no session is asked for.
        Self.keep(["s2.ts"], in: &core)
        guard case let .publish(_, more)? = core.playlistUploaded(variant: "720p", body: Self.playlist(["s0.ts", "s1.ts", "s2.ts"]), now: Self.now).last else {
            Issue.record("a playlist within the session asked for one")
            return
        }
        #expect(more.map(\.slot) == [42])
    }

    @Test func aPlaylistThatIsNoTextOrNamesWhatWasNotReceivedIsRefused() {
        var core = Self.core()
        #expect(status(core.playlistUploaded(variant: "720p", body: [0xFF, 0xFE], now: Self.now) { 0 }.last) == 400)
        // In a session, a playlist that names a segment not received is refused whole.
        Self.keep(["s0.ts"], in: &core)
        _ = core.playlistUploaded(variant: "720p", body: Self.playlist(["s0.ts"]), now: Self.now) { 40 }
        let refused = core.playlistUploaded(variant: "720p", body: Self.playlist(["s0.ts", "never.ts"]), now: Self.now) { 40 }
        #expect(status(refused.last) == 400 && reason(refused.last).contains("never.ts"), "\(refused)")
    }

    @Test(arguments: [
        (3, [String](), [String](), "listed 3 new segments"),
        (1, [], [], "listed 1 new segment"),
        (0, ["a.ts"], ["b.ts", "c.ts"], "listed 0 new segments; 1 late, recorded in place of their stand-ins (a.ts); 2 late with no slot to take them, kept aside as unplaced (b.ts, c.ts)"),
    ] as [(Int, [String], [String], String)])
    func whatBecameOfTheListingsIsTheAnswer(listed: Int, recorded: [String], late: [String], message: String) {
        #expect(PushedStreamCore.publishReceipt(listed: listed, recorded: recorded, late: late) == .answer(created: false, message: message))
    }

    // MARK: Masters

    @Test func aConfiguredLadderTakesItsRungsFormatsAndFillsTheOnesLeftOut() {
        var core = Self.core()
        let actions = core.masterUploaded(Self.master([("720p", "1280x720", "avc1.64001f,mp4a.40.2")]), facts: .init())
        #expect(actions == [.noteFormats([.init(variant: "720p", format: VariantFormat(codecs: ["avc1.64001f", "mp4a.40.2"], width: 1280, height: 720, frameRate: 30))]),
                            .notPushed(["360p"]), .answer(created: false, message: "master taken: 720p; not pushed: 360p")])
        // Its segments are then held to what it declared.
        #expect(status(core.segmentUploaded(variant: "720p", name: "s0.ts", inspection: Self.segment(audio: []))) == 400)
    }

    @Test func aConfiguredLadderRefusesAStranger() {
        var core = Self.core()
        let actions = core.masterUploaded(Self.master([("1080p", "1920x1080", "avc1.640028")]), facts: .init())
        #expect(status(actions.last) == 400 && reason(actions.last).contains("1080p/index.m3u8"), "\(actions)")
    }

    @Test func aStreamWithoutOneTakesTheLadderItsEncoderDeclares() {
        var core = Self.core(configured: false)
        let actions = core.masterUploaded(Self.master([("360p", "640x360", "avc1.64001e,mp4a.40.2"), ("180p", "320x180", "avc1.42c00d,mp4a.40.2")]), facts: .init())
        guard actions.count == 2, case let .takeLadder(rungs, formats, notPushed) = actions[0] else {
            Issue.record("\(actions)")
            return
        }
        #expect(rungs.map(\.name) == ["360p", "180p"] && formats.map(\.variant) == ["360p", "180p"] && notPushed.isEmpty)
        #expect(actions[1] == .answer(created: false, message: "the encoder's ladder (360p, 180p) taken for this stream and kept; master taken: 360p, 180p"))
    }

    /// A new ladder once the stream holds footage, or after it took one: 409, nothing taken.
    @Test(arguments: [(PushedStreamCore.Facts(recordingHoldsFootage: true), "has recorded footage"),
                      (PushedStreamCore.Facts(tookDeclaredLadder: true), "took it from an earlier master of its encoder since the server started")])
    func aSecondLadderIsAConflict(facts: PushedStreamCore.Facts, reason: String) {
        var core = Self.core(configured: false)
        let actions = core.masterUploaded(Self.master([("1080p", "1920x1080", "avc1.640028,mp4a.40.2")]), facts: facts)
        #expect(actions.count == 1 && status(actions.last) == 409 && self.reason(actions.last).contains(reason), "\(actions)")
    }

    /// An encoder's session began (its segments were listed): the stream holds footage.
    @Test func aSessionIsFootage() {
        var core = Self.core(configured: false)
        Self.keep(["s0.ts"], in: &core)
        _ = core.playlistUploaded(variant: "720p", body: Self.playlist(["s0.ts"]), now: Self.now) { 40 }
        let actions = core.masterUploaded(Self.master([("1080p", "1920x1080", "avc1.640028,mp4a.40.2")]), facts: .init())
        #expect(status(actions.last) == 409, "\(actions)")
    }

    /// An encoder that starts again with other codecs (its audio gone) declares them: its master
    /// is taken, and the segments after it are held to it, not to what earlier ones carried.
    @Test func aMasterWithOtherCodecsIsTakenAndTheSegmentsAfterItAreHeldToIt() {
        var core = Self.core()
        Self.keep(["s0.ts"], in: &core)
        let actions = core.masterUploaded(Self.master([("720p", "1280x720", "avc1.64001f")]), facts: .init())
        #expect(actions.last == .answer(created: false, message: "master taken: 720p; not pushed: 360p"), "\(actions)")
        #expect(status(core.segmentUploaded(variant: "720p", name: "s1.ts", inspection: Self.segment(1))) == 400, "sound the master no longer declares")
        #expect(core.segmentUploaded(variant: "720p", name: "s1.ts", inspection: Self.segment(1, audio: [])) == .keepSegment(variant: "720p", name: "s1.ts", stampedBy: 0))
    }

    /// A declared ladder's codecs are noted when it is set up (the core made anew), not when
    /// its master is answered: a master refused after that leaves nothing here.
    @Test func takingALadderNotesNoCodecsUntilItIsSetUp() {
        var core = Self.core(configured: false)
        let actions = core.masterUploaded(Self.master([("360p", "640x360", "hvc1.1.6.L93.B0,mp4a.40.2"), ("180p", "320x180", "hvc1.1.6.L63.B0,mp4a.40.2")]), facts: .init())
        guard case .takeLadder = actions.first else {
            Issue.record("\(actions)")
            return
        }
        #expect(core.declared.isEmpty)
    }
}
