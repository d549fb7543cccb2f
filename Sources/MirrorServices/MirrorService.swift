import Foundation
import Logging
import SegmentStore
import ServiceLifecycle
import SidelineCore
import StreamMirroring

/// Runs one mirrored stream (`MirrorSession`) as a service of the process and words what it
/// reports for the log.
public struct MirrorService: Service {
    let session: MirrorSession
    let logger: Logger

    public init(session: MirrorSession, logger: Logger) {
        self.session = session
        self.logger = logger
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await session.run() }
        } catch let refusal as MirrorRefusal {
            throw SidelineStartupError(message: Redaction.url(refusal.description))
        }
    }

    /// The session's clock and sleep in the server: the monotonic clock, and Task.sleep.
    public static func session(upstream: URL, chosen: [String]?, client: UpstreamClient, destination: MirrorDisk, logger: Logger) -> MirrorSession {
        MirrorSession(upstreamMaster: upstream, chosen: chosen, upstream: client, destination: destination, clock: MonotonicClock.seconds,
                      sleep: MonotonicClock.sleep,
                      report: { log($0, logger: logger, directory: destination.layout.streamDirectory) })
    }

    /// Every URL and reason the mirror's decisions report may hold the upstream credential
    /// (its URLs are under `/access/<credential>/`): each goes through `Redaction` first.
    static func log(_ event: MirrorEvent, logger: Logger, directory: String) {
        switch event.redacted {
        case let .restored(variant, listed, files):
            logger.info("restored what the mirror holds", metadata: ["variant": "\(variant)", "listed": "\(listed)", "files": "\(files)"])
        case let .upstreamFailed(variant, reason, failures):
            // The first failure of an outage is a warning; the rest would flood the log.
            if failures == 1 {
                logger.warning("upstream failed; retrying while serving what the mirror holds", metadata: ["variant": "\(variant)", "reason": "\(reason)"])
            } else {
                logger.debug("upstream still failing", metadata: ["variant": "\(variant)", "reason": "\(reason)", "failures": "\(failures)"])
            }
        case let .upstreamBack(variant, failures):
            logger.notice("upstream reachable again", metadata: ["variant": "\(variant)", "after-failures": "\(failures)"])
        case let .conflict(variant, reason):
            logger.error("the upstream's recording is not the one this mirror holds; serving what it holds as VOD and no longer following. To mirror the new recording, move \(directory) aside and start the mirror again",
                         metadata: ["variant": "\(variant)", "reason": "\(reason)"])
        case let .segmentLost(variant, url, status):
            logger.warning("the upstream no longer has a segment it listed; it is listed here as EXT-X-GAP", metadata: ["variant": "\(variant)", "segment": "\(url)", "status": "\(status)"])
        case let .modeChanged(variant, mode, listed):
            let what = switch mode {
            case .offline: "upstream unreachable or stale: serving what the mirror holds as VOD"
            case .ended: "the upstream ended the stream and the mirror holds all of it"
            case .following: "following the upstream (EVENT)"
            }
            logger.notice("\(what)", metadata: ["variant": "\(variant)", "listed": "\(listed)"])
        case let .unpublishedKept(variant, count):
            logger.debug("unpublished downloads kept on disk; listed at the next reload", metadata: ["variant": "\(variant)", "count": "\(count)"])
        case let .masterUnavailable(reason):
            logger.warning("the upstream's master is not available yet; retrying", metadata: ["reason": "\(reason)"])
        case let .variantsChanged(upstream, followed):
            logger.info("the upstream's variants changed; restart the mirror to follow the new set", metadata: ["upstream": "\(upstream)", "followed": "\(followed)"])
        }
    }
}

extension MirrorEvent {
    /// The event with every URL and reason redacted (`Redaction.url` leaves other text as it is).
    var redacted: MirrorEvent {
        switch self {
        case let .upstreamFailed(variant, reason, failures): .upstreamFailed(variant: variant, reason: Redaction.url(reason), failures: failures)
        case let .conflict(variant, reason): .conflict(variant: variant, reason: Redaction.url(reason))
        case let .segmentLost(variant, url, status): .segmentLost(variant: variant, url: Redaction.url(url), status: status)
        case let .masterUnavailable(reason): .masterUnavailable(reason: Redaction.url(reason))
        default: self
        }
    }
}
