import Foundation
import HLSOrigin
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationCompat
import OriginAccess
import OriginAPI
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineTesting
import Testing

/// `GET /api/sets` and `GET /api/sets/{set}` over real HTTP on 127.0.0.1: the JSON the page
/// reads, key by key; 404 for a name no set has.
@Suite struct SetsAPIHTTPTests {
    static let set = StreamRegistry.AngleSet(name: "match", title: "Home v Away", streams: ["wide", "tv"], segmentDuration: 2)

    func makeApplication(access: ViewerAccess? = nil) -> some ApplicationProtocol {
        let registry = StreamRegistry(clock: { 0 }, angleSets: [Self.set])
        registry.apply(.register(stream: "wide", title: "Wide", variants: ["720p"], targetDuration: 2))
        registry.apply(.register(stream: "tv", variants: ["720p"], targetDuration: 2))
        registry.apply(.publish(.init(.segment("000000.ts", file: .init(path: "/unread", size: 1880, duration: 2)), stream: "wide", variant: "720p", playlist: TestPlaylists.live(count: 1))))
        registry.apply(.phase(stream: "wide", .live))
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger,
                                            routes: [{ StreamsRoutes(registry: registry, dataDirectory: nil, access: access).add(to: $0) }])
    }

    static let expected = """
    {
      "angles" : [
        {
          "default" : true,
          "master" : "/live/wide/master.m3u8",
          "remote" : false,
          "state" : "live",
          "stream" : "wide",
          "title" : "Wide",
          "vod" : "/vod/wide/master.m3u8"
        },
        {
          "default" : false,
          "master" : "/live/tv/master.m3u8",
          "remote" : false,
          "state" : "starting",
          "stream" : "tv",
          "title" : "",
          "vod" : "/vod/tv/master.m3u8"
        }
      ],
      "clip" : "/api/sets/match/clip.zip",
      "markers" : "/api/sets/match/markers",
      "master" : "/live/match/master.m3u8",
      "name" : "match",
      "private" : false,
      "segment_duration" : 2,
      "title" : "Home v Away",
      "vod" : "/vod/match/master.m3u8"
    }
    """

    @Test func theSetsAreDescribedWithTheirAngles() async throws {
        try await makeApplication().test(.live) { client in
            try await client.execute(uri: "/api/sets", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let indented = Self.expected.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
                #expect(String(buffer: response.body) == "{\n  \"sets\" : [\n" + indented + "\n  ]\n}")
            }
            try await client.execute(uri: "/api/sets/match", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == Self.expected)
            }
            try await client.execute(uri: "/api/sets/nomatch", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).contains("no angle set named 'nomatch'") && !String(buffer: response.body).contains("there are"))
            }
        }
    }

    /// A box that lists a set another box serves (its default angle is there; issue 35,
    /// `boxes`): not in its list, and the set's own path says where it is served.
    @Test func aSetAnotherBoxServesIsNotListedAndSaysWhereItIsServed() async throws {
        let registry = StreamRegistry(clock: { 0 }, remoteAngles: ["wide": "http://10.0.0.2:8080"], setsServedElsewhere: ["match"])
        registry.apply(.register(stream: "tv", variants: ["720p"], targetDuration: 2))
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let application = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger,
                                                       routes: [{ StreamsRoutes(registry: registry, dataDirectory: nil, access: nil).add(to: $0) }])
        try await application.test(.live) { client in
            try await client.execute(uri: "/api/sets", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"sets\" : [\n\n  ]"), "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/api/sets/match", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).contains("served by the box that encodes its default angle"))
            }
        }
    }

    /// A private set: its URLs carry the set's credential for a caller whose token covers it;
    /// to anyone else it shows nothing of itself (issue 33): not listed, and its own URL
    /// answers as a set that does not exist, naming no private set.
    @Test func aPrivateSetsURLsCarryTheSetsCredential() async throws {
        let rules = AccessRules(viewerTokens: ["wide": "match-token"], signingKey: "venue-key", angleSets: ["match": ["wide", "tv"]])
        let access = ViewerAccess(rules: rules, wallClock: { 1_800_000_000 })
        let credential = try #require(rules.viewerCredential(for: "match", now: 1_800_000_000))
        try await makeApplication(access: access).test(.live) { client in
            try await client.execute(uri: "/api/sets/match", method: .get, headers: [.authorization: "Bearer match-token"]) { response in
                let set = try JSONDecoder().decode(SetsAPI.SetInfo.self, from: Data(buffer: response.body))
                #expect(set.private && set.master == "/access/\(credential)/live/match/master.m3u8")
                #expect(set.angles.map(\.master) == ["/access/\(credential)/live/wide/master.m3u8", "/access/\(credential)/live/tv/master.m3u8"])
                #expect(set.markers == "/access/\(credential)/api/sets/match/markers")
            }
            try await client.execute(uri: "/api/sets", method: .get, headers: [.authorization: "Bearer match-token"]) { response in
                let listing = try JSONDecoder().decode(SetsAPI.Listing.self, from: Data(buffer: response.body))
                #expect(listing.sets.map(\.name) == ["match"])
            }
            for headers: HTTPFields in [[:], [.authorization: "Bearer not-the-token"]] {
                try await client.execute(uri: "/api/sets", method: .get, headers: headers) { response in
                    #expect(response.status == .ok)
                    let text = String(buffer: response.body)
                    let listing = try JSONDecoder().decode(SetsAPI.Listing.self, from: Data(buffer: response.body))
                    #expect(listing.sets.isEmpty, "\(text)")
                    #expect(!text.contains("match") && !text.contains("wide"), "\(text)")
                }
                for uri in ["/api/sets/match", "/api/sets/nomatch"] {
                    try await client.execute(uri: uri, method: .get, headers: headers) { response in
                        #expect(response.status == .notFound)
                        let text = String(buffer: response.body)
                        // The same answer for the private set as for one that does not exist.
                        #expect(text.hasPrefix("no angle set named '\(uri.dropFirst("/api/sets/".count))'") && !text.contains("wide"), "\(uri): \(text)")
                    }
                }
            }
        }
    }

    /// `GET /api/streams/{stream}`: one stream's entry, for a caller whose credential opens it
    /// (another box of the venue asking with a URL credential for an angle the list shows it
    /// locked): behind the gate, and naming no other stream.
    @Test func oneStreamsEntryOpensToItsCredentialAlone() async throws {
        let rules = AccessRules(viewerTokens: ["wide": "wide-token", "tv": "tv-token"], signingKey: "venue-key")
        let access = ViewerAccess(rules: rules, wallClock: { 1_800_000_000 })
        let credential = try #require(rules.signedCredential(for: "wide", expires: 1_800_000_600))
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "wide", title: "Wide", variants: ["720p"], targetDuration: 2))
        registry.apply(.register(stream: "tv", variants: ["720p"], targetDuration: 2))
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let application = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger,
                                                       routes: [{ StreamsRoutes(registry: registry, dataDirectory: nil, access: access).add(to: $0) }], access: access)
        try await application.test(.live) { client in
            try await client.execute(uri: "/access/\(credential)/api/streams/wide", method: .get) { response in
                #expect(response.status == .ok)
                let info = try JSONDecoder().decode(StreamsAPI.StreamInfo.self, from: Data(buffer: response.body))
                #expect(info.id == "wide" && info.title == "Wide" && info.urlPrefix == "/access/\(credential)")
                #expect(!String(buffer: response.body).contains("tv"), "no other stream named")
                #expect(response.headers[.cacheControl] == "private, no-cache", "\(response.headers)")
            }
            try await client.execute(uri: "/api/streams/wide", method: .get, headers: [.authorization: "Bearer wide-token"]) { response in
                #expect(response.status == .ok)
            }
            for (uri, status) in [("/api/streams/wide", HTTPResponse.Status.unauthorized), ("/access/\(credential)/api/streams/tv", .forbidden),
                                  ("/api/streams/nobody", .notFound)] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == status, "\(uri): \(String(buffer: response.body))")
                }
            }
        }
    }
}
