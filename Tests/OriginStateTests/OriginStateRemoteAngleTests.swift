import HLSPlaylist
import OriginPolicy
import OriginState
import SidelineTesting
import Testing

/// An angle another box serves (issue 35, `boxes`): in the set's master once that box has
/// said its master, a new version only when the master changes, and a request for its own URLs
/// here refused with where to go.
@Suite struct OriginStateRemoteAngleTests {
    static let set = OriginState.AngleSet(name: "match", title: "Cup final", streams: ["wide", "goal"], segmentDuration: 2)

    @Test func theSetsMasterListsTheRemoteAngleOnceItsBoxHasAnswered() throws {
        var state = OriginState(angleSets: [Self.set], remoteAngles: ["goal": "http://10.0.0.12:8080"])
        state.apply(.register(stream: "wide", variants: ["720p"], targetDuration: 2), now: 0)
        state.apply(.master(stream: "wide", OriginStateLookupTests.master("720p")), now: 0)
        #expect(SetMaster(Self.set, in: state)?.angles.map(\.stream) == ["wide"], "not listed before its box answers")
        #expect(state.remoteAngles["goal"]?.state == "unreachable")

        state.apply(.remoteAngle(stream: "goal", title: "Goal", state: "live", master: OriginStateLookupTests.master("360p")), now: 0)
        let master = try #require(SetMaster(Self.set, in: state))
        #expect(master.angles.map(\.stream) == ["wide", "goal"])
        #expect(master.angles.last?.title == "Goal")
        let version = state.masterVersion(of: "goal")
        #expect(version > 0 && version != state.masterVersion(of: "wide"))

        state.apply(.remoteAngle(stream: "goal", title: "Goal", state: "stalled", master: OriginStateLookupTests.master("360p")), now: 0)
        #expect(state.masterVersion(of: "goal") == version, "the same master: nothing to render again")
        #expect(state.remoteAngles["goal"]?.state == "stalled")
        state.apply(.remoteAngle(stream: "goal", title: "Goal", state: "live", master: OriginStateLookupTests.master("180p")), now: 0)
        #expect(state.masterVersion(of: "goal") > version)
        let retitled = state.masterVersion(of: "goal")
        state.apply(.remoteAngle(stream: "goal", title: "Goal end", state: "live", master: nil), now: 0)
        #expect(state.masterVersion(of: "goal") > retitled, "the title is the angle's NAME in the set's master")
        #expect(SetMaster(Self.set, in: state)?.angles.last?.title == "Goal end")

        state.apply(.remoteAngle(stream: "goal", title: "Goal", state: "removed", master: nil), now: 0)
        #expect(SetMaster(Self.set, in: state)?.angles.map(\.stream) == ["wide"], "a removed angle is left out, as a local one")
    }

    @Test func aRemoteAnglesOwnURLsAreRefusedHereAndUnknownNamesChangeNothing() {
        var state = OriginState(angleSets: [Self.set], remoteAngles: ["goal": "http://10.0.0.12:8080"])
        #expect(throws: Refusal.servedByAnotherBox("goal")) { try state.existing("goal") }
        #expect(Refusal.servedByAnotherBox("goal").kind == .noSuchResource)
        #expect(!Refusal.servedByAnotherBox("goal").reason.contains("10.0.0.12"), "the way in is the edge, not the box's address")
        state.apply(.remoteAngle(stream: "other", title: "x", state: "live", master: OriginStateLookupTests.master("360p")), now: 0)
        #expect(state.remoteAngles["other"] == nil)
        #expect(throws: Refusal.noSuchStream("other")) { try state.existing("other") }
    }
}
