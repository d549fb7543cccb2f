import Foundation
import HLSOrigin
import HLSPlaylist
import OriginAccess
import OriginRegistry
import OriginState
import SidelineTesting
import Testing
import TestSupport

/// An angle set's master on a real server, through both of the origin's paths: the angles as
/// alternative VIDEO renditions whose URIs, followed from the set's URL (plain, `/vod/`, or
/// under `/access/<credential>/`), give each angle's playlists and segments; a set credential
/// opening every angle, one angle's opening no other.
@Suite struct SetMasterHTTPTests {
    let segmentBytes = (0..<(188 * 20)).map { UInt8(truncatingIfNeeded: $0) }
    static let now = 1_800_000_000.0
    static let set = StreamRegistry.AngleSet(name: "match", title: "Home v Away", streams: ["wide", "tv", "goal"], segmentDuration: 2)
    /// `wide` and `tv` private with one token, `goal` open: the set is private.
    static let rules = AccessRules(viewerTokens: ["wide": "match-token", "tv": "match-token"], signingKey: "venue-key", staffTokens: ["staff-token"],
                                   angleSets: ["match": ["wide", "tv", "goal"]])

    static func masterText(_ rungs: [(String, Int)]) -> String {
        "#EXTM3U\n#EXT-X-VERSION:4\n#EXT-X-INDEPENDENT-SEGMENTS\n" + rungs.map { name, height in
            "#EXT-X-STREAM-INF:BANDWIDTH=\(height * 4000),CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=\(height * 16 / 9)x\(height),FRAME-RATE=30.000\n\(name)/index.m3u8\n"
        }.joined() + rungs.map { name, height in
            "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=\(height * 400),CODECS=\"avc1.64001f\",RESOLUTION=\(height * 16 / 9)x\(height),URI=\"\(name)/iframes.m3u8\"\n"
        }.joined()
    }

    /// `wide` and `tv` with 720p and 360p, `goal` with 540p only; two segments each.
    func makeRegistry() throws -> StreamRegistry {
        let directory = NSTemporaryDirectory() + "sideline-sets-\(UUID().uuidString.prefix(8))"
        let registry = StreamRegistry(clock: { 10 }, angleSets: [Self.set])
        let ladders = ["wide": [("720p", 720), ("360p", 360)], "tv": [("720p", 720), ("360p", 360)], "goal": [("540p", 540)]]
        for (stream, ladder) in ladders {
            registry.apply(.register(stream: stream, title: stream == "tv" ? "Broadcast" : "", variants: ladder.map(\.0), targetDuration: 2))
            try RecordedVariants.publish(registry, stream: stream, variants: ladder.map(\.0), bytes: segmentBytes, in: directory)
            registry.apply(.master(stream: stream, .parsed(Self.masterText(ladder))))
        }
        return registry
    }

    /// The private-path tests' server (`access` nil: nothing private).
    func withServer(_ registry: StreamRegistry, fastPath: Bool, access: ViewerAccess? = nil, _ body: (Int) async throws -> Void) async throws {
        try await PrivateOnEveryPathHTTPTests().withServer(registry, fastPath: fastPath, access: access, body)
    }

    func status(_ response: HTTPExchange.Response) -> Int { ViewerAccessHTTPTests().status(response) }
    func text(_ response: HTTPExchange.Response) -> String { String(decoding: response.body, as: UTF8.self) }

    /// `uri` (relative, as the master gives it) resolved against the master's path, as a player does.
    static func resolve(_ uri: String, against master: String) throws -> String {
        try #require(SetMasterReading.path(resolving: uri, against: master))
    }

    /// The URIs of the master's `EXT-X-MEDIA` renditions, by NAME, in the first group.
    static func renditions(_ master: String) -> [(name: String, uri: String)] { SetMasterReading.renditions(master) }

    @Test(arguments: [true, false])
    func theSetsMasterListsEveryAngleAndItsURIsPlay(fastPath: Bool) async throws {
        let registry = try makeRegistry()
        try await withServer(registry, fastPath: fastPath) { port in
            let master = "/live/match/master.m3u8"
            let response = try #require(try await HTTPExchange.send([.get(master)], port: port).first)
            #expect(status(response) == 200)
            #expect(response.header("content-type") == "application/vnd.apple.mpegurl")
            let body = text(response)
            let parsed = try MultivariantPlaylist.parse(body)
            // A player that does not switch angles plays the default angle.
            #expect(parsed.variants.map(\.uri) == ["../wide/720p/index.m3u8", "../wide/360p/index.m3u8"])
            #expect(body.contains("#EXT-X-SESSION-DATA:DATA-ID=\"com.sideline.title\",VALUE=\"Home v Away\""))
            let renditions = Self.renditions(body)
            #expect(renditions.map(\.name) == ["wide", "Broadcast", "goal"])
            #expect(renditions.map(\.uri) == ["../wide/720p/./index.m3u8", "../tv/720p/index.m3u8", "../goal/540p/index.m3u8"])
            #expect(parsed.iFrameStreams.map(\.uri).contains("../goal/540p/iframes.m3u8"))
            // Every rendition, followed from the set's URL, is that angle's playlist, and its segments play.
            for rendition in renditions {
                let playlistPath = try Self.resolve(rendition.uri, against: master)
                let playlist = try #require(try await HTTPExchange.send([.get(playlistPath)], port: port).first)
                #expect(status(playlist) == 200, "\(playlistPath)")
                #expect(text(playlist).hasPrefix("#EXTM3U"))
                let segment = try Self.resolve("000001.ts", against: playlistPath)
                let fetched = try #require(try await HTTPExchange.send([.get(segment)], port: port).first)
                #expect(status(fetched) == 200 && fetched.body == segmentBytes, "\(segment)")
            }
            // The `./` of the default angle's rendition, sent as it is (a player that does not
            // resolve dot segments): the same playlist.
            let unresolved = try await HTTPExchange.send([.get("/live/match/../wide/720p/./index.m3u8")], port: port)
            #expect(unresolved.map(status) == [200])
            // The recording as VOD: the same angles, every URI under /vod/ and carrying the window.
            let vod = try #require(try await HTTPExchange.send([.get("/vod/match/master.m3u8?start=0&end=4")], port: port).first)
            #expect(status(vod) == 200)
            let vodRenditions = Self.renditions(text(vod))
            #expect(vodRenditions.map(\.uri) == ["../wide/720p/./index.m3u8?start=0&end=4", "../tv/720p/index.m3u8?start=0&end=4", "../goal/540p/index.m3u8?start=0&end=4"])
            let vodPlaylist = try Self.resolve(vodRenditions[1].uri, against: "/vod/match/master.m3u8")
            #expect(vodPlaylist == "/vod/tv/720p/index.m3u8?start=0&end=4")
            let vodAnswer = try #require(try await HTTPExchange.send([.get(vodPlaylist)], port: port).first)
            #expect(status(vodAnswer) == 200 && text(vodAnswer).contains("#EXT-X-ENDLIST"))
            // A name that is neither a set nor a stream: 404, as any unknown stream.
            // A set's steering manifest on a box with no pair: 404, as a stream's.
            let unknown = try await HTTPExchange.send([.get("/live/nomatch/master.m3u8"), .get("/vod/nomatch/master.m3u8"), .get("/live/match/720p/index.m3u8"),
                                                       .get("/live/match/steering.json")], port: port)
            #expect(unknown.map(status) == [404, 404, 404, 404])
        }
    }

    /// Before its default angle has a master, the set's answers as that angle's would (503 while starting).
    @Test func theSetWaitsForItsDefaultAngle() async throws {
        let registry = StreamRegistry(clock: { 10 }, angleSets: [Self.set])
        for stream in Self.set.streams { registry.apply(.register(stream: stream, variants: ["720p"], targetDuration: 2)) }
        try await withServer(registry, fastPath: true) { port in
            let answers = try await HTTPExchange.send([.get("/live/match/master.m3u8"), .get("/live/wide/master.m3u8")], port: port)
            #expect(answers.map(status) == [503, 503])
        }
    }

    @Test(arguments: [true, false])
    func aPrivateSetOpensWithOneCredential(fastPath: Bool) async throws {
        let registry = try makeRegistry()
        let access = ViewerAccess(rules: Self.rules, wallClock: { Self.now })
        let forSet = try #require(Self.rules.signedCredential(for: "match", expires: Int(Self.now) + 600))
        let forWide = try #require(Self.rules.signedCredential(for: "wide", expires: Int(Self.now) + 600))
        let viewerForSet = try #require(Self.rules.viewerCredential(for: "match", now: Self.now))
        try await withServer(registry, fastPath: fastPath, access: access) { port in
            // Without a credential: the set (private since an angle is) and its private angles refuse; the open angle plays.
            let bare = try await HTTPExchange.send([.get("/live/match/master.m3u8"), .get("/live/tv/720p/index.m3u8"), .get("/live/goal/540p/index.m3u8")], port: port)
            #expect(bare.map(status) == [401, 401, 200])
            for credential in [forSet, viewerForSet] {
                let master = "/access/\(credential)/live/match/master.m3u8"
                let answer = try #require(try await HTTPExchange.send([.get(master)], port: port).first)
                #expect(status(answer) == 200)
                var paths: [String] = []
                for rendition in Self.renditions(text(answer)) {
                    let playlist = try Self.resolve(rendition.uri, against: master)
                    paths += [playlist, try Self.resolve("000000.ts", against: playlist), try Self.resolve("../master.m3u8", against: playlist)]
                }
                #expect(paths.allSatisfy { $0.hasPrefix("/access/\(credential)/live/") })
                #expect(try await HTTPExchange.send(paths.map { .get($0) }, port: port).map(status) == Array(repeating: 200, count: 9))
            }
            // One angle's credential opens that angle only: not the set, not another angle.
            let narrow = try await HTTPExchange.send([.get("/access/\(forWide)/live/wide/720p/index.m3u8"), .get("/access/\(forWide)/live/tv/720p/index.m3u8"),
                                                      .get("/access/\(forWide)/live/match/master.m3u8")], port: port)
            #expect(narrow.map(status) == [200, 403, 403])
            // The shared viewer token as a bearer opens the set too; staff tokens open everything.
            let bearer = try await HTTPExchange.send([.get("/live/match/master.m3u8", ["Authorization": "Bearer match-token"]),
                                                      .get("/live/match/master.m3u8", ["Authorization": "Bearer staff-token"])], port: port)
            #expect(bearer.map(status) == [200, 200])
        }
    }
}
