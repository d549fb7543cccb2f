import Foundation
import HLSOrigin
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationCompat
import OriginAPI
import OriginRegistry
import OriginState
import PlayerSessions
import SidelineTesting
import Testing

/// CMCD in and CMSD out on a real server, through the fast path and the router: requests
/// shaped like hls.js's (query) and AVPlayer's (headers) become sessions in `/api/sessions`
/// (admin token only), malformed CMCD is ignored and counted, and playlists and segments say
/// what they are in `CMSD-Static`, fills included.
@Suite struct PlayerSessionsHTTPTests {
    let segmentBytes = [UInt8](repeating: 0x47, count: 188 * 10)

    func makeApplication(fastPath: Bool, clock: ManualClock) throws -> (some ApplicationProtocol, PlayerDiagnostics) {
        let directory = NSTemporaryDirectory() + "sideline-cmcd-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p", "360p"], targetDuration: 2))
        for (n, fill) in [nil, "stand-in"].enumerated() {
            let path = "\(directory)/\(n).ts"
            _ = FileManager.default.createFile(atPath: path, contents: Data(segmentBytes))
            for variant in ["720p", "360p"] {
                registry.apply(.publish(.init(.segment(String(format: "%06d.ts", n), file: .init(path: path, size: segmentBytes.count, duration: 2, fill: fill)),
                    stream: "main", variant: variant, playlist: TestPlaylists.live(count: n + 1))))
            }
        }
        let diagnostics = PlayerDiagnostics(book: PlayerSessionBook(clock: clock.read))
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger,
                                               routes: [{ SessionsRoutes(diagnostics: diagnostics, adminToken: "admin-secret").add(to: $0) }],
                                               fastPath: fastPath, diagnostics: diagnostics)
        return (app, diagnostics)
    }

    static let hlsJS = "CMCD=bl%3D21300%2Cbr%3D3200%2Ccid%3D%22match%22%2Cmtp%3D48100%2Cot%3Dv%2Csf%3Dh%2Csid%3D%22hlsjs-1%22%2Cst%3Dl"

    @Test(arguments: [true, false])
    func cmcdBecomesSessionsAndAnswersSayWhatTheyAre(fastPath: Bool) async throws {
        let clock = ManualClock(1_800_000_000)
        let (app, diagnostics) = try makeApplication(fastPath: fastPath, clock: clock)
        try await app.test(.live) { client in
            // hls.js plays 720p well.
            try await client.execute(uri: "/live/main/720p/index.m3u8?" + Self.hlsJS.replacingOccurrences(of: "ot%3Dv", with: "ot%3Dm"), method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.init("CMSD-Static")!] == "ot=m,sf=h,st=l")
                #expect(response.headers[.init("CMSD-Dynamic")!]?.hasPrefix("\"sideline\";com.sideline-egress=") == true)
            }
            try await client.execute(uri: "/live/main/720p/000000.ts?" + Self.hlsJS, method: .get) { response in
                #expect(response.status == .ok && response.headers[.init("CMSD-Static")!] == "ot=av,sf=h,st=l")
            }
            // AVPlayer on 360p runs dry: its headers say so, on the stand-in segment.
            let avplayer: HTTPFields = [
                .init("CMCD-Object")!: "br=800,d=2000,ot=av", .init("CMCD-Request")!: "bl=0,mtp=650",
                .init("CMCD-Session")!: "cid=\"match\",sf=h,sid=\"avplayer-1\",st=l", .init("CMCD-Status")!: "bs", .userAgent: "AppleCoreMedia/1.0.0.22A3354",
            ]
            try await client.execute(uri: "/live/main/360p/000001.ts", method: .get, headers: avplayer) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.init("CMSD-Static")!] == "ot=av,sf=h,st=l,com.sideline-fill=\"stand-in\"")
            }
            // Malformed CMCD: the segment is still answered, the CMCD counted and dropped.
            try await client.execute(uri: "/live/main/720p/000000.ts?CMCD=bl%3D", method: .get) { response in
                #expect(response.status == .ok)
            }
            // Requests for streams that do not exist are not sessions (no label from a URL).
            try await client.execute(uri: "/live/nope/720p/000000.ts?" + Self.hlsJS.replacingOccurrences(of: "hlsjs-1", with: "ghost"), method: .get) { response in
                #expect(response.status == .notFound)
            }

            try await client.execute(uri: "/api/sessions", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/sessions", method: .get, headers: [.authorization: "Bearer admin-secret"]) { response in
                #expect(response.status == .ok && response.headers[.cacheControl] == "no-store")
                let listing = try JSONDecoder().decode(SessionsRoutes.Listing.self, from: Data(buffer: response.body))
                #expect(listing.sessions.map(\.sid) == ["avplayer-1", "hlsjs-1"], "stalling first")
                #expect(listing.malformedCMCD == 1)
                let stalling = listing.sessions[0], playing = listing.sessions[1]
                #expect(stalling.state == "stalling" && stalling.variant == "360p" && stalling.bufferLengthMs == 0 && stalling.measuredThroughputKbps == 650)
                #expect(stalling.stallingSince == "2027-01-15T08:00:00Z" && stalling.userAgent == "AppleCoreMedia/1.0.0.22A3354")
                #expect(playing.state == "playing" && playing.variant == "720p" && playing.bufferLengthMs == 21300 && playing.requests == 2 && playing.cid == "match")
            }
        }
        // Idle players are forgotten.
        clock.advance(by: 61)
        #expect(diagnostics.sessions().isEmpty)
    }
}
