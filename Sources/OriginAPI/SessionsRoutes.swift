import Foundation
import HLSOrigin
import Hummingbird
import NIOCore
import OriginPolicy
import PlayerSessions

/// `GET /api/sessions`: the players the origin heard CMCD from (`PlayerDiagnostics`), stalling
/// ones first, for the operator: which player is struggling, on which stream and variant, with
/// what buffer and measured throughput, since when. Needs the admin token
/// (`Authorization: Bearer`): sessions carry User-Agents and content IDs.
public struct SessionsRoutes: Sendable {
    let diagnostics: PlayerDiagnostics
    let reading: OperatorToken

    public init(diagnostics: PlayerDiagnostics, adminToken: String) {
        self.diagnostics = diagnostics
        self.reading = .admin(adminToken, for: "player sessions")
    }

    public struct Listing: Codable, Equatable, Sendable {
        public var sessions: [Session]
        /// Requests whose CMCD could not be read (ignored, never refused).
        public var malformedCMCD: Int
    }

    public struct Session: Codable, Equatable, Sendable {
        public var sid: String
        public var cid: String?
        public var stream: String
        public var variant: String?
        /// playing or stalling (the latest segment request reported buffer starvation).
        public var state: String
        public var stallingSince: String?
        public var stalls: Int
        public var bufferLengthMs: Int?
        public var measuredThroughputKbps: Int?
        public var encodedBitrateKbps: Int?
        public var streamType: String?
        public var userAgent: String?
        public var requests: Int
        public var firstSeen: String
        public var lastSeen: String
    }

    /// The listing; the book's clock is Unix seconds.
    public static func listing(_ sessions: [PlayerSession], malformed: Int) -> Listing {
        let format = { (seconds: Double) in ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds)) }
        return Listing(sessions: sessions.map { s in
            Session(sid: s.sid, cid: s.contentID, stream: s.stream, variant: s.variant, state: s.state.rawValue, stallingSince: s.stallingSince.map(format), stalls: s.stalls,
                    bufferLengthMs: s.bufferLengthMs, measuredThroughputKbps: s.measuredThroughputKbps, encodedBitrateKbps: s.encodedBitrateKbps,
                    streamType: s.streamType, userAgent: s.userAgent, requests: s.requests, firstSeen: format(s.firstSeen), lastSeen: format(s.lastSeen))
        }, malformedCMCD: malformed)
    }

    public func add<Context: RequestContext>(to router: Router<Context>) {
        router.get("/api/sessions") { request, _ in
            if let refusal = reading.refusal(authorization: request.headers[.authorization]) { return Response(refusal) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            let body = try encoder.encode(Self.listing(diagnostics.sessions(), malformed: diagnostics.book.malformedCount))
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: CachePolicy.noStore.headerValue], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
    }
}
