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
/// streams. An angle that box keeps private (its listing shows it locked to this box's
/// anonymous question) is asked for with `credentials` (`RemoteAngleCredentials`): its own entry
/// and its master. What the answers say that is wrong in the venue's configs (an open set here
/// holding a private angle, a name both boxes encode, another frame rate) is logged as an error.
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
    let credentials: RemoteAngleCredentials?
    let checks: VenueChecks
    let logger: Logger

    /// What this box holds the others' answers against: the sets it serves openly with their
    /// angles (`AccessRules.openSets`), the streams it encodes, and each remote angle's
    /// expected frame rate (its set's angles' here).
    public struct VenueChecks: Sendable {
        public var openSets: [String: [String]]
        public var localStreams: Set<String>
        public var frameRates: [String: Double]
        public init(openSets: [String: [String]] = [:], localStreams: Set<String> = [], frameRates: [String: Double] = [:]) {
            self.openSets = openSets
            self.localStreams = localStreams
            self.frameRates = frameRates
        }
    }

    public init(boxes: [Box], calls: any VenueBoxCalling, registry: StreamRegistry, interval: Double = 2, credentials: RemoteAngleCredentials? = nil,
                checks: VenueChecks = VenueChecks(), logger: Logger) {
        self.boxes = boxes
        self.credentials = credentials
        self.checks = checks
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
        var collisions: [String] = []
        while !Task.isCancelled {
            // Decoded once for every angle of the box (up to `RemoteAngleReading.maximumAnswerBytes`).
            let listing = RemoteAngleReading.Listing.decoded(await get(box.base + "/api/streams", authorization: nil))
            let alsoHere = RemoteAngleReading.namesAlsoHere(decoded: listing, local: checks.localStreams)
            if alsoHere != collisions, !alsoHere.isEmpty {
                logger.error("\(box.base) encodes streams named as this box's (\(alsoHere.joined(separator: ", "))): with one signing key a credential for a name opens it on every box, so give every camera of the venue its own name",
                             metadata: ["box": "\(box.base)"])
            }
            collisions = alsoHere
            for stream in box.streams {
                let before = said[stream]
                var info: UpstreamAnswer?
                let master: UpstreamAnswer?
                if RemoteAngleReading.isLocked(stream, decoded: listing) ?? (before?.isPrivate ?? false),
                   let asking = credentials?.asking(for: stream, now: Date().timeIntervalSince1970) {
                    info = await get(box.base + asking.prefix + "/api/streams/\(stream)", authorization: asking.authorization)
                    master = await get(box.base + asking.prefix + "/live/\(stream)/master.m3u8", authorization: asking.authorization)
                } else {
                    master = await get(box.base + "/live/\(stream)/master.m3u8", authorization: nil)
                }
                let now = RemoteAngleReading.reading(stream: stream, decoded: listing, info: info, master: master, before: before)
                if before?.state != now.state {
                    logger.log(level: now.state == "unreachable" || now.state == "missing" ? .warning : .info, "an angle another box serves is \(now.state)",
                               metadata: ["stream": "\(stream)", "box": "\(box.base)"])
                }
                if now.isPrivate != before?.isPrivate, let mismatch = RemoteAngleReading.privacyMismatch(stream: stream, said: now, box: box.base, openSets: checks.openSets) {
                    logger.error("\(mismatch)", metadata: ["stream": "\(stream)", "box": "\(box.base)"])
                }
                if now.master != before?.master,
                   let mismatch = RemoteAngleReading.frameRateMismatch(stream: stream, said: now, box: box.base, expected: checks.frameRates[stream]) {
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

    /// One GET, whole within 2 s and `RemoteAngleReading.maximumAnswerBytes`; nil otherwise.
    private func get(_ url: String, authorization: String?) async -> UpstreamAnswer? {
        await calls.send(.get, url: url, body: nil, authorization: authorization, saveTo: nil, limit: RemoteAngleReading.maximumAnswerBytes, timeout: 2)
            .map { UpstreamAnswer(status: $0.status, body: $0.body) }
    }
}
