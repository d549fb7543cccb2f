import SidelineCore
import Testing

/// The one rule for a name from outside (a stream, set or variant): a path component as it is,
/// and none of the names the server keeps beside it (issue 33: a pushed master's rung named
/// `master.m3u8` made a folder where the master is written, and the server would not start).
@Suite struct StoreNamesTests {
    @Test(arguments: ["720p", "360p", "wide", "stream_0", "angle-2", "v1.5", "a", String(repeating: "a", count: 64), "Main"])
    func usableNames(name: String) {
        #expect(StoreNames.isUsable(name))
    }

    /// Every name the server keeps is refused, in any case (a disk that folds case), as is an
    /// earlier recording's name and anything that is no plain path component.
    @Test(arguments: [
        "master.m3u8", "MASTER.M3U8", "timeline.json", "ingest", "Ingest", "unplaced", "metadata.json", "markers.json", "removed",
        "set-timeline.json", "set-master.m3u8", "upstream-responses.jsonl", "session.json", "ladder.json", "push-queue",
        "main.previous-20261128T101010", "x.PREVIOUS-1", "state.json", "ingest.", "720p.",
        "", ".", "..", ".clips", "-rm", "a/b", "a b", "été", "a%2Fb", String(repeating: "a", count: 65),
    ])
    func refusedNames(name: String) {
        #expect(!StoreNames.isUsable(name), "\(name)")
    }

    @Test func everyKeptNameIsReservedAndTheRuleSaysSo() {
        let kept = [StoreNames.masterPlaylist, StoreNames.timeline, StoreNames.ingest, StoreNames.unplaced, StoreNames.metadata, StoreNames.markers,
                    StoreNames.tombstone, StoreNames.setTimeline, StoreNames.mirroredSetMaster, StoreNames.upstreamResponses,
                    StoreNames.ingestSession, StoreNames.pushedLadder, StoreNames.pushQueue]
        for name in kept {
            #expect(StoreNames.reserved.contains(name.lowercased()), "\(name)")
            #expect(StoreNames.rule.contains(name), "the refusal's text names \(name)")
        }
    }
}
