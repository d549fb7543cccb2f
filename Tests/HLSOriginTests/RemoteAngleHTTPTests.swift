import Foundation
import HLSOrigin
import HLSPlaylist
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineTesting
import Testing

/// An angle another box serves (issue 35, `boxes`), on a real server through both of the
/// origin's paths: the set's master lists it once its box has said its master, with URIs
/// relative to the set's URL (the edge sends them to that box), and this box refuses the
/// angle's own URLs with 404 saying where it is served, never a file of its own.
@Suite struct RemoteAngleHTTPTests {
    static let set = StreamRegistry.AngleSet(name: "match", title: "Home v Away", streams: ["wide", "goal"], segmentDuration: 2)

    @Test(arguments: [true, false])
    func theSetListsTheRemoteAngleAndLeavesItsURLsToItsBox(fastPath: Bool) async throws {
        let directory = NSTemporaryDirectory() + "sideline-remote-\(UUID().uuidString.prefix(8))"
        let registry = StreamRegistry(clock: { 10 }, angleSets: [Self.set], remoteAngles: ["goal": "http://10.0.0.12:8080"])
        registry.apply(.register(stream: "wide", variants: ["720p", "360p"], targetDuration: 2))
        try RecordedVariants.publish(registry, stream: "wide", variants: ["720p", "360p"], bytes: Array(repeating: 0x47, count: 188 * 4), in: directory)
        registry.apply(.master(stream: "wide", .parsed(SetMasterHTTPTests.masterText([("720p", 720), ("360p", 360)]))))
        try await SetMasterHTTPTests().withServer(registry, fastPath: fastPath) { port in
            func get(_ path: String) async throws -> HTTPExchange.Response { try #require(try await HTTPExchange.send([.get(path)], port: port).first) }
            let before = try await get("/live/match/master.m3u8")
            #expect(SetMasterHTTPTests.renditions(String(decoding: before.body, as: UTF8.self)).map(\.name) == ["wide"], "not listed before its box answers")

            registry.apply(.remoteAngle(stream: "goal", title: "Goal end", state: "live", master: .parsed(SetMasterHTTPTests.masterText([("540p", 540)]))))
            let after = String(decoding: try await get("/live/match/master.m3u8").body, as: UTF8.self)
            let renditions = SetMasterHTTPTests.renditions(after)
            #expect(renditions.map(\.name) == ["wide", "Goal end"])
            #expect(renditions.last?.uri == "../goal/540p/index.m3u8")
            #expect(try MultivariantPlaylist.parse(after).iFrameStreams.map(\.uri).contains("../goal/540p/iframes.m3u8"))

            for path in ["/live/goal/master.m3u8", "/live/goal/540p/index.m3u8", "/live/goal/540p/000001.ts", "/vod/goal/master.m3u8"] {
                let answer = try await get(path)
                #expect(SetMasterHTTPTests().status(answer) == 404, "\(path)")
                let body = String(decoding: answer.body, as: UTF8.self)
                #expect(body.contains("served by another box") && !body.contains("10.0.0.12"), "\(path): \(body) \(answer.headers)")
            }
        }
    }

    /// A set another box serves (its default angle is there), listed on this box for its
    /// angles' sake: its URLs answer 404 saying where it is served, on both paths.
    @Test(arguments: [true, false])
    func aSetAnotherBoxServesAnswersWhereItIsServed(fastPath: Bool) async throws {
        let registry = StreamRegistry(clock: { 10 }, remoteAngles: ["wide": "http://10.0.0.2:8080"], setsServedElsewhere: ["match"])
        #expect(throws: Refusal.setServedByAnotherBox("match")) { try registry.existingSet("match") }
        #expect(throws: Refusal.setServedByAnotherBox("match")) { try registry.existing("match") }
        try await SetMasterHTTPTests().withServer(registry, fastPath: fastPath) { port in
            for path in ["/live/match/master.m3u8", "/live/match/steering.json", "/vod/match/master.m3u8"] {
                let answer = try #require(try await HTTPExchange.send([.get(path)], port: port).first)
                #expect(SetMasterHTTPTests().status(answer) == 404, "\(path)")
                let body = String(decoding: answer.body, as: UTF8.self)
                #expect(body.contains("served by the box that encodes its default angle") && !body.contains("10.0.0.2"), "\(path): \(body)")
            }
        }
    }
}
