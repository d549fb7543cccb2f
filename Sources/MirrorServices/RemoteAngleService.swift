import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import OriginRegistry
import OriginState
import ServiceLifecycle
import StreamMirroring

/// The venue's other boxes, asked about the angles they serve (issue 35, `boxes`): every
/// `interval` seconds, each box's `/api/streams` and each of its angles' masters, read by
/// `RemoteAngleReading` and handed to the registry (`OriginChange.remoteAngle`), so this box's
/// sets list those angles in their masters and pages. Wiring only; one box that does not answer
/// delays no other (each is asked on its own task) and never this box's own streams.
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
    let registry: StreamRegistry
    let interval: Double
    let logger: Logger

    public init(boxes: [Box], registry: StreamRegistry, interval: Double = 2, logger: Logger) {
        self.boxes = boxes
        self.registry = registry
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(1), read: .seconds(2)))
        // The box's answer is its own, never another address it names.
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 2)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for box in boxes { group.addTask { await follow(box, client: client) } }
            }
        }
        try? await client.shutdown()
    }

    /// Asks `box` until cancelled, saying what changed.
    private func follow(_ box: Box, client: HTTPClient) async {
        var said: [String: RemoteAngleReading.Said] = [:]
        while !Task.isCancelled {
            let listing = await get(box.base + "/api/streams", client: client)
            for stream in box.streams {
                let master = await get(box.base + "/live/\(stream)/master.m3u8", client: client)
                let before = said[stream]
                var now = RemoteAngleReading.reading(stream: stream, listing: listing, master: master, before: before)
                if before?.state != now.state {
                    logger.log(level: now.state == "unreachable" || now.state == "missing" ? .warning : .info, "an angle another box serves is \(now.state)",
                               metadata: ["stream": "\(stream)", "box": "\(box.base)"])
                }
                if now.master == nil { now.master = before?.master }
                if now != before {
                    registry.apply(.remoteAngle(stream: stream, title: now.title, state: now.state, master: now.master))
                    said[stream] = now
                }
            }
            try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
        }
    }

    /// One GET, bounded in time (body included) and size; nil when there is no whole answer in time.
    private func get(_ url: String, client: HTTPClient) async -> UpstreamAnswer? {
        await withDeadline(seconds: 2) {
            do {
                let response = try await client.execute(HTTPClientRequest(url: url), deadline: .now() + .seconds(2))
                let body = try await response.body.collect(upTo: RemoteAngleReading.maximumAnswerBytes)
                return UpstreamAnswer(status: Int(response.status.code), body: Array(buffer: body))
            } catch {
                return nil
            }
        }
    }
}
