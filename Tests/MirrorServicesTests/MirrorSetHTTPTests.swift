import Foundation
import HLSOrigin
import HLSPlaylist
import Logging
import MirrorServices
import OriginAccess
import OriginRegistry
import OriginState
import SegmentStore
import SidelineTesting
import StreamMirroring
import Testing
import TestSupport

/// A mirror that follows an angle set whole, on real servers on 127.0.0.1: the set's master on
/// the upstream names the angles, each angle is mirrored as a stream of its own, the mirror
/// serves the set (its master lists both angles, whose entries carry the upstream's program
/// date-times), and a restart with the upstream gone still knows the set.
@Suite struct MirrorSetHTTPTests {
    static let isValidName: @Sendable (String) -> Bool = { !$0.isEmpty && !$0.contains("/") && !$0.hasPrefix(".") }

    @Test(arguments: [
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"360p\",NAME=\"Wide\",DEFAULT=YES,URI=\"../wide/360p/index.m3u8\"\n"
            + "#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"360p\",NAME=\"Goal\",DEFAULT=NO,URI=\"../goal/360p/index.m3u8\"\n"
            + "#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"180p\",NAME=\"Wide\",DEFAULT=YES,URI=\"../wide/180p/index.m3u8\"\n", ["wide", "goal"]),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n360p/index.m3u8\n", nil),
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"a\",NAME=\"x\",URI=\"../.hidden/360p/index.m3u8\"\n", nil),
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"a\",NAME=\"x\",URI=\"../noslash\"\n", nil),
        ("#EXTM3U\n" + (0..<17).map { "#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"a\",NAME=\"x\",URI=\"../c\($0)/360p/index.m3u8\"\n" }.joined(), nil),
    ] as [(String, [String]?)])
    func theAnglesAreReadFromTheSetsMaster(text: String, angles: [String]?) {
        #expect(SetMasterAngles.angles(inMaster: text, isValidName: Self.isValidName) == angles)
    }

    @Test func anAnglesMasterIsTheSetsURLWithItsName() throws {
        let set = MirrorSet(name: "match", angles: ["wide", "goal"])
        for (given, expected) in [("http://h:8080/live/match/master.m3u8", "http://h:8080/live/goal/master.m3u8"),
                                  ("https://h/access/abc.def/live/match/master.m3u8?x=1", "https://h/access/abc.def/live/goal/master.m3u8?x=1")] {
            #expect(set.master(of: "goal", from: try #require(URL(string: given))).absoluteString == expected)
        }
    }

    /// A private set (both angles private, sharing a viewer token) is followed whole from one
    /// URL signed for the set: the credential in its path reaches every angle's master, and
    /// the mirror's record of upstream answers keeps no credential.
    static let rules = AccessRules(viewerTokens: ["wide": "match-token", "goal": "match-token"], signingKey: "venue-signing-key-0123",
                                   angleSets: ["match": ["wide", "goal"]])

    @Test(arguments: [false, true])
    func aSetIsMirroredWholeAndKnownOffline(isPrivate: Bool) async throws {
        let directory = try PrivateMirrorHTTPTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The upstream: set 'match' of 'wide' and 'goal', three entries each on one timeline.
        let upstream = StreamRegistry(clock: { 10 }, angleSets: [.init(name: "match", streams: ["wide", "goal"], segmentDuration: 2)])
        for angle in ["wide", "goal"] {
            upstream.apply(.register(stream: angle, variants: ["720p"], targetDuration: 2))
            try FileManager.default.createDirectory(atPath: "\(directory)/origin/\(angle)", withIntermediateDirectories: true)
            for n in 0..<3 {
                let name = String(format: "%06d.ts", n), path = "\(directory)/origin/\(angle)/\(name)"
                _ = FileManager.default.createFile(atPath: path, contents: Data(TestSegments.minimal()))
                upstream.apply(.publish(.init(.segment(name, file: .init(path: path, size: 4 * 188, duration: 2)),
                    stream: angle, variant: "720p", playlist: TestPlaylists.live(count: n + 1, ended: n == 2))))
            }
            upstream.apply(.master(stream: angle, .parsed("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS=\"avc1.64001f\",RESOLUTION=1280x720\n720p/index.m3u8\n")))
        }
        let origin = try await PrivateMirrorHTTPTests.serve(upstream, access: isPrivate ? ViewerAccess(rules: Self.rules) : nil), originPort = origin.port
        defer { Task { await origin.stop() } }
        let credential = isPrivate ? Self.rules.signedCredential(for: "match", expires: Int(Date().timeIntervalSince1970) + 3600) : nil
        try #require(!isPrivate || credential != nil, "the rules sign a credential for the set")
        let setURL = try #require(URL(string: "http://127.0.0.1:\(originPort)\(credential.map { "/access/\($0)" } ?? "")/live/match/master.m3u8"))
        if isPrivate {
            let refused = try await PrivateMirrorHTTPTests.get("http://127.0.0.1:\(originPort)/live/goal/720p/index.m3u8")
            #expect(refused.status == 401, "an angle of the private set without the credential")
        }
        let data = "\(directory)/mirror"
        try MirrorDisk.prepare(StreamLayout(dataDirectory: data, stream: "match"))
        let client = try UpstreamClient(headers: [], recordedHeaders: ["Content-Type"], responseLogPath: "\(data)/match/upstream-responses.jsonl")
        defer { Task { await client.shutdown() } }
        let set = try #require(await MirrorSet.discover(master: setURL, name: "match", fetch: client, dataDirectory: data, isValidName: Self.isValidName))
        #expect(set.angles == ["wide", "goal"])
        // A stream's master is not a set.
        #expect(await MirrorSet.discover(master: set.master(of: "wide", from: setURL), name: "wide", fetch: client, dataDirectory: data, isValidName: Self.isValidName) == nil)

        // The mirror, wired as `sideline mirror` wires it: one session per angle, the set served.
        let registry = StreamRegistry(angleSets: [set.angleSet(segmentDuration: 2)])
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let sessions = try set.angles.map { angle in
            let layout = StreamLayout(dataDirectory: data, stream: angle)
            try MirrorDisk.prepare(layout)
            let session = MirrorService.session(upstream: set.master(of: angle, from: setURL), chosen: nil, client: client,
                                                destination: MirrorDisk(layout: layout, registry: registry), logger: logger)
            return Task { try await session.run() }
        }
        defer { sessions.forEach { $0.cancel() } }
        let mirror = try await PrivateMirrorHTTPTests.serve(registry, access: nil), mirrorPort = mirror.port
        defer { Task { await mirror.stop() } }
        let base = "http://127.0.0.1:\(mirrorPort)/live"
        let deadline = ContinuousClock.now + .seconds(20)
        var playlists: [String] = []
        repeat {
            try await Task.sleep(for: .milliseconds(100))
            playlists = []
            for angle in set.angles { playlists.append(try await PrivateMirrorHTTPTests.get("\(base)/\(angle)/720p/index.m3u8").body) }
        } while ContinuousClock.now < deadline && !playlists.allSatisfy { $0.contains("000002.ts") }
        let dates = playlists.map { $0.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME") } }
        #expect(dates[0].count == 3 && dates[0] == dates[1], "\(playlists)")
        let master = try await PrivateMirrorHTTPTests.get("\(base)/match/master.m3u8")
        #expect(master.status == 200 && master.body.contains("URI=\"../wide/") && master.body.contains("URI=\"../goal/"), "\(master)")

        // The upstream gone: a restart still knows the set from what the first start kept.
        await origin.stop()
        let offline = await MirrorSet.discover(master: setURL, name: "match", fetch: client, dataDirectory: data, isValidName: Self.isValidName)
        #expect(offline == set)
        if let credential {
            // Written as answers come; complete once the client is shut down.
            sessions.forEach { $0.cancel() }
            await client.shutdown()
            let log = (try? String(contentsOfFile: "\(data)/match/upstream-responses.jsonl", encoding: .utf8)) ?? ""
            #expect(log.contains("/access/<redacted>/live/goal/") && !log.contains(credential), "the upstream log keeps no credential: \(log.prefix(600))")
        }
    }
}
