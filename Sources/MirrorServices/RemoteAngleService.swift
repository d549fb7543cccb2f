import Foundation
import HTTPTypes
import Logging
import OriginAPI
import OriginRegistry
import OriginState
import ServiceLifecycle
import StreamMirroring

/// The venue's other boxes, asked about the angles they serve (issue 35, `boxes`): every
/// `interval` seconds, each box's `/api/streams` and each of its angles' masters, read by
/// `RemoteAngleReading` and handed to the registry (`OriginChange.remoteAngle`), so this box's
/// sets list those angles in their masters and pages. Asked through `calls` (the process's one
/// `VenueBoxClient`: answers whole within 2 s, no redirect followed). Wiring only; one box that
/// does not answer delays no other (each is asked on its own task) and never this box's own
/// streams. A private angle is asked for with this box's staff token (`authorization`), which
/// every box of the venue shares, as the markers forwarded to it need: without it, that box
/// lists the angle as locked and keeps its master.
public struct RemoteAngleService: Service {
    public struct Box: Sendable {
        public var base: String
        public var streams: [String]
        public init(base: String, streams: [String]) {
            self.base = base
            self.streams = streams
        }
    }

    let boxes: [Box]
    let calls: any VenueBoxCalling
    let registry: StreamRegistry
    let interval: Double
    let authorization: String?
    let openSets: [String: [String]]
    let logger: Logger

    /// `authorization`: the `Authorization` header every question carries (`staffAuthorization`).
    /// `openSets`: the sets this box serves openly, with their angles
    /// (`AccessRules.openSets`), to say when another box keeps one of their angles private.
    public init(boxes: [Box], calls: any VenueBoxCalling, registry: StreamRegistry, interval: Double = 2, authorization: String? = nil,
                openSets: [String: [String]] = [:], logger: Logger) {
        self.boxes = boxes
        self.authorization = authorization
        self.openSets = openSets
        self.calls = calls
        self.registry = registry
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for box in boxes { group.addTask { await follow(box) } }
            }
        }
    }

    /// Asks `box` until cancelled, saying what changed.
    private func follow(_ box: Box) async {
        var said: [String: RemoteAngleReading.Said] = [:]
        while !Task.isCancelled {
            let listing = await get(box.base + "/api/streams")
            for stream in box.streams {
                let master = await get(box.base + "/live/\(stream)/master.m3u8")
                let before = said[stream]
                let now = RemoteAngleReading.reading(stream: stream, listing: listing, master: master, before: before)
                if before?.state != now.state {
                    logger.log(level: now.state == "unreachable" || now.state == "missing" ? .warning : .info, "an angle another box serves is \(now.state)",
                               metadata: ["stream": "\(stream)", "box": "\(box.base)"])
                }
                if now.isPrivate != before?.isPrivate, let mismatch = RemoteAngleReading.privacyMismatch(stream: stream, said: now, box: box.base, openSets: openSets) {
                    logger.error("\(mismatch)", metadata: ["stream": "\(stream)", "box": "\(box.base)"])
                }
                if now != before {
                    registry.apply(.remoteAngle(stream: stream, title: now.title, state: now.state, master: now.master))
                    said[stream] = now
                }
            }
            try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
        }
    }

    /// The header a box asks the others with: its analyst token (staff watch every stream),
    /// else its admin token, as a bearer; nil with neither (the others' private angles then
    /// stay `private` here, and their sets' masters leave them out).
    public static func staffAuthorization(analystToken: String, adminToken: String) -> String? {
        let token = analystToken.isEmpty ? adminToken : analystToken
        return token.isEmpty ? nil : "Bearer " + token
    }

    /// One GET, whole within 2 s and `RemoteAngleReading.maximumAnswerBytes`; nil otherwise.
    private func get(_ url: String) async -> UpstreamAnswer? {
        await calls.send(.get, url: url, body: nil, authorization: authorization, saveTo: nil, limit: RemoteAngleReading.maximumAnswerBytes, timeout: 2)
            .map { UpstreamAnswer(status: $0.status, body: $0.body) }
    }
}
