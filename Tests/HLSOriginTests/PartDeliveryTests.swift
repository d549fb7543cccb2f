import Foundation
@testable import HLSOrigin
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import OriginPolicy
@testable import OriginRegistry
import OriginState
import SidelineTesting
import Synchronization
import Testing

/// Parts (Low-Latency HLS) through the registry and the decision: the playlist with its edge,
/// blocking at part granularity (held, then 503 without it), a part from memory while its
/// segment is made and from its segment's file after, the hinted part held until made, and a
/// real server that answers a held part request the moment the part is published.
@Suite struct PartDeliveryTests {
    /// Four parts of 1000, 188, 2000 and 376 bytes: a segment is exactly them in a row.
    static let partSizes = [1000, 188, 2000, 376]

    static func partBytes(_ sequence: Int, _ index: Int) -> [UInt8] {
        [UInt8](repeating: UInt8(truncatingIfNeeded: sequence &* 16 &+ index), count: partSizes[index])
    }

    static func edge(listed: [Int], open: Int, next: Int) -> LowLatencyEdge {
        // TestPlaylists dates entry i at 1_800_000_000 + 2i.
        TestEdges.recorded(listed: listed, open: open, next: next, openDate: open > 0 ? Date(timeIntervalSince1970: 1_800_000_000 + Double(2 * next)) : nil)
    }

    /// A registry whose variant lists entries 0-9 (9 with its parts, its file at `directory`).
    func registry(directory: String = "/nonexistent", sleep: (@Sendable (Double) async throws -> Void)? = nil) -> StreamRegistry {
        let registry = sleep.map { StreamRegistry(clock: { 0 }, sleep: $0) } ?? StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        registry.apply(.publish(.init(.segment("000008.ts", file: .init(path: directory + "/000008.ts", size: 3564, duration: 2)),
                                      stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 9), edge: Self.edge(listed: [], open: 0, next: 9))))
        for index in 0..<4 { publishPart(9, index, to: registry) }
        registry.apply(.publish(.init(.segment("000009.ts", file: .init(path: directory + "/000009.ts", size: 3564, duration: 2)),
                                      stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 10), edge: Self.edge(listed: [9], open: 0, next: 10))))
        registry.apply(.master(stream: "main", .parsed("#EXTM3U\n")))
        return registry
    }

    func publishPart(_ sequence: Int, _ index: Int, to registry: StreamRegistry) {
        let listed = sequence == 10 ? [9] : []
        registry.apply(.part(stream: "main", variant: "720p", .init(sequence: sequence, index: index, bytes: Self.partBytes(sequence, index)),
                             edge: Self.edge(listed: listed, open: index + 1, next: sequence)))
    }

    func decide(_ uri: String, _ registry: StreamRegistry, held: Bool = false) -> OriginDecision {
        let parts = uri.split(separator: "?", maxSplits: 1).map(String.init)
        return OriginDecision.decide(OriginPath.parse(parts[0]), directives: PlaylistDirectives.parse(query: parts.count > 1 ? parts[1] : nil), held: held, registry: registry)
    }

    func status(_ decision: OriginDecision) -> Int? { if case let .refuse(refusal) = decision { refusal.status } else { nil } }

    @Test func thePlaylistCarriesTheEdgeAndPartHoldBack() throws {
        let registry = registry()
        publishPart(10, 0, to: registry)
        guard case let .playlist(rendered, _) = decide("/live/main/720p/index.m3u8", registry) else {
            Issue.record("the live playlist is served")
            return
        }
        let text = String(buffer: rendered.plain)
        #expect(text.contains("CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.500\n"))
        #expect(text.contains("#EXT-X-PART-INF:PART-TARGET=0.500000\n"))
        #expect(text.contains("#EXT-X-PART:DURATION=0.500000,URI=\"parts/000009.3.ts\"\n#EXTINF:2.000000,\n000009.ts\n"), "a listed entry's parts before its URI")
        #expect(text.hasSuffix("#EXT-X-PROGRAM-DATE-TIME:2027-01-15T08:00:20.000Z\n#EXT-X-PART:DURATION=0.500000,URI=\"parts/000010.0.ts\",INDEPENDENT=YES\n#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"parts/000010.1.ts\"\n"), "\(text)")
        let rules = LowLatencyPlaylistRules.violations(of: text)
        #expect(rules.isEmpty, "\(rules)")
    }

    @Test func blockingReloadHoldsForAPartThenRefusesWithoutIt() {
        let registry = registry()
        publishPart(10, 0, to: registry)
        guard case .playlist = decide("/live/main/720p/index.m3u8?_HLS_msn=10&_HLS_part=0", registry) else {
            Issue.record("a listed part: answered at once")
            return
        }
        #expect(decide("/live/main/720p/index.m3u8?_HLS_msn=10&_HLS_part=1", registry)
            == .hold(.init(stream: "main", variant: "720p", iFrames: false, sequence: 10, part: 1, seconds: 6)))
        #expect(decide("/live/main/720p/index.m3u8?_HLS_msn=11&_HLS_part=0", registry)
            == .hold(.init(stream: "main", variant: "720p", iFrames: false, sequence: 11, part: 0, seconds: 6)))
        guard case let .refuse(timedOut) = decide("/live/main/720p/index.m3u8?_HLS_msn=10&_HLS_part=1", registry, held: true) else {
            Issue.record("held three target durations without the part: 503")
            return
        }
        #expect(timedOut.status == 503 && timedOut.kind == .partNotReady && timedOut.cache == .noStore)
        #expect(decide("/live/main/720p/index.m3u8?_HLS_msn=10&_HLS_part=4", registry)
            == .hold(.init(stream: "main", variant: "720p", iFrames: false, sequence: 10, part: 4, seconds: 6)), "past a segment's last part: the next one's first")
        #expect(status(decide("/live/main/720p/index.m3u8?_HLS_msn=11&_HLS_part=3", registry)) == 400, "seven parts ahead of the last listed: past the Advance Part Limit (3 s of 0.5 s parts)")
        #expect(status(decide("/live/main/720p/index.m3u8?_HLS_msn=13&_HLS_part=0", registry)) == 400, "more than two segments past the last")
    }

    /// From memory while the segment is made; once it is listed, the same bytes as a range of
    /// its file; the hinted part held; anything else 404, stored by no cache.
    @Test func aPartIsFoundWhereverItIs() throws {
        let registry = registry()
        publishPart(10, 0, to: registry)
        #expect(decide("/live/main/720p/parts/000010.0.ts", registry) == .part(ByteBuffer(bytes: Self.partBytes(10, 0))))
        #expect(decide("/live/main/720p/parts/000009.2.ts", registry) == .partOfFile(.init(path: "/nonexistent/000009.ts", size: 3564, duration: 2), 1188..<3188))
        #expect(decide("/live/main/720p/parts/000010.1.ts", registry)
            == .hold(.init(stream: "main", variant: "720p", iFrames: false, sequence: 10, part: 1, seconds: 6)), "the hinted part")
        guard case let .refuse(notMade) = decide("/live/main/720p/parts/000010.1.ts", registry, held: true) else {
            Issue.record("the hinted part, still not made after its hold: 503")
            return
        }
        #expect(notMade.status == 503 && notMade.cache == .noStore)
        for uri in ["/live/main/720p/parts/000010.2.ts", "/live/main/720p/parts/000008.0.ts", "/live/main/720p/parts/000009.4.ts", "/live/main/720p/parts/999999.0.ts"] {
            guard case let .refuse(refusal) = decide(uri, registry) else {
                Issue.record("\(uri): not listed, not hinted: refused")
                continue
            }
            #expect(refusal.status == 404 && refusal.cache == .noStore, "\(uri): a part not made is never cached as a refusal")
        }
        registry.apply(.phase(stream: "main", .removed))
        #expect(status(decide("/live/main/720p/parts/000010.0.ts", registry)) == 410)
    }

    /// A part the state lists whose bytes the registry has not stored yet (they follow under
    /// the lock a moment later) is held, not refused.
    @Test func aPartListedButNotYetStoredIsHeld() {
        let registry = registry()
        publishPart(10, 0, to: registry)
        registry.published.withLock { $0.served["main"]?.variants["720p"]?.openParts.removeAll() }
        #expect(decide("/live/main/720p/parts/000010.0.ts", registry)
            == .hold(.init(stream: "main", variant: "720p", iFrames: false, sequence: 10, part: 0, seconds: 6)))
    }

    /// Held requests wake when what each waits for is listed, not at every part.
    @Test func aRequestHeldForAPartWakesOnThatPart() async {
        let registry = registry()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask { await registry.waitUntilListed(stream: "main", variant: "720p", sequence: 10, part: 1, seconds: 600) }
            }
            group.addTask { await registry.waitUntilListed(stream: "main", variant: "720p", sequence: 10, seconds: 600) }
            while registry.heldRequests < 101 { await Task.yield() }
            publishPart(10, 0, to: registry)
            #expect(registry.heldRequests == 101, "part 0 wakes nobody waiting for part 1")
            publishPart(10, 1, to: registry)
            while registry.heldRequests > 1 { await Task.yield() }
            #expect(registry.heldRequests == 1, "the one waiting for the whole segment still waits")
            registry.apply(.publish(.init(.segment("000010.ts", file: .init(path: "/nonexistent/000010.ts", size: 1, duration: 2)),
                                          stream: "main", variant: "720p", playlist: TestPlaylists.live(count: 11), edge: Self.edge(listed: [9], open: 0, next: 11))))
            await group.waitForAll()
        }
        #expect(registry.heldRequests == 0)
    }

    /// A real server on an ephemeral port: the hinted part is held and answered whole the moment
    /// it is published; a listed segment's part is those bytes of its file, so the four parts
    /// are the segment byte for byte.
    @Test func partsOverHTTP() async throws {
        let directory = NSTemporaryDirectory() + "sideline-parts-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let segment = (0..<4).flatMap { Self.partBytes(9, $0) }
        try Data(segment).write(to: URL(fileURLWithPath: directory + "/000009.ts"))
        let registry = registry(directory: directory)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger)
        try await app.test(.live) { client in
            async let held: (HTTPResponse.Status, [UInt8]) = client.execute(uri: "/live/main/720p/parts/000010.0.ts", method: .get) { response in
                (response.status, Array(buffer: response.body))
            }
            while registry.heldRequests < 1 { try await Task.sleep(for: .milliseconds(5)) }
            publishPart(10, 0, to: registry)
            let (status, body) = try await held
            #expect(status == .ok && body == Self.partBytes(10, 0))
            try await client.execute(uri: "/live/main/720p/parts/000010.0.ts", method: .get) { response in
                #expect(response.headers[.cacheControl] == "public, max-age=1", "a part of the segment being made is not final: kept a second")
                #expect(response.headers[HTTPField.Name("X-Accel-Expires")!] == "1", "even by an edge that ignores Cache-Control (the private edge)")
            }
            var joined: [UInt8] = []
            for index in 0..<4 {
                try await client.execute(uri: "/live/main/720p/parts/000009.\(index).ts", method: .get) { response in
                    #expect(response.status == .ok && response.headers[.contentType] == "video/mp2t")
                    #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable", "a listed segment's part is final")
                    #expect(response.headers[HTTPField.Name("X-Accel-Expires")!] == nil)
                    joined += Array(buffer: response.body)
                }
            }
            #expect(joined == segment)
        }
    }
}
