import HLSPlaylist
import OriginPolicy
import OriginState
import SidelineTesting
import Testing

/// The lookups every route makes of the state: a stream (404, 410), a set (404), and a set's
/// master made from its angles' masters as values.
@Suite struct OriginStateLookupTests {
    static let set = OriginState.AngleSet(name: "match", title: "Cup final", streams: ["tv", "tactical"], segmentDuration: 2)

    static func master(_ rung: String) -> MultivariantPlaylist {
        .parsed("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS=\"avc1.64001f\"\n\(rung)/index.m3u8\n")
    }

    @Test func aStreamIsFoundMissingOrRemoved() throws {
        var state = OriginState()
        state.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2), now: 0)
        #expect(try state.existing("main").phase == .starting)
        #expect(throws: Refusal.noSuchStream("other")) { try state.existing("other") }
        state.apply(.phase(stream: "main", .removed), now: 0)
        #expect(throws: Refusal.streamRemoved("main")) { try state.existing("main") }
    }

    @Test func aSetsMasterNeedsItsDefaultAngleAndLeavesOutAnglesWithoutOne() throws {
        var state = OriginState(angleSets: [Self.set])
        for stream in Self.set.streams { state.apply(.register(stream: stream, variants: ["720p"], targetDuration: 2), now: 0) }
        #expect(throws: Refusal.noSuchSet("other")) { try state.existingSet("other") }
        let set = try state.existingSet("match")
        state.apply(.master(stream: "tactical", Self.master("720p")), now: 0)
        #expect(SetMaster(set, in: state) == nil, "no master for the default angle yet")
        state.apply(.master(stream: "tv", Self.master("720p")), now: 0)
        state.apply(.metadata(stream: "tv", title: "Broadcast", description: "", keywords: ""), now: 0)
        #expect(SetMaster(set, in: state)?.angles.map(\.stream) == ["tv", "tactical"])
        #expect(SetMaster(set, in: state)?.angles.first?.title == "Broadcast")
        state.apply(.phase(stream: "tactical", .removed), now: 0)
        #expect(SetMaster(set, in: state)?.angles.map(\.stream) == ["tv"], "a removed angle is left out")
    }
}
