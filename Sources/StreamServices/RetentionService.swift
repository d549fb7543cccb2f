import Foundation
import Logging
import OriginPolicy
import SegmentStore
import ServiceLifecycle
import SidelineConfig

/// Applies `retention` to the data directory: at start and every `check_interval` seconds,
/// removes the recordings the policy gives up (see `RetentionPolicy`). One of this server's
/// streams is removed like `sideline admin remove` (410 from then on, tombstone, recording
/// deleted); a recording no configured stream continues is deleted outright, so its name stays
/// free for a future stream.
public struct RetentionService: Service {
    let settings: RetentionSettings
    let dataDirectory: String
    let operations: PipelineOperations
    let logger: Logger

    public init(settings: RetentionSettings, dataDirectory: String, operations: PipelineOperations, logger: Logger) {
        self.settings = settings
        self.dataDirectory = dataDirectory
        self.operations = operations
        self.logger = logger
    }

    var policy: RetentionPolicy {
        RetentionPolicy(maxAge: settings.maxAgeHours > 0 ? settings.maxAgeHours * 3600 : nil,
                        maxBytes: settings.maxSizeGB > 0 ? Int64(settings.maxSizeGB * 1e9) : nil)
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                // Walking a large recording is blocking file-system work: a thread of its own.
                await onOwnThread { applyOnce() }
                try? await Task.sleep(for: .seconds(settings.checkInterval))
            }
        }
    }

    func applyOnce(now: Date = Date()) {
        for entry in RecordingInventory.scan(dataDirectory: dataDirectory) {
            let recording = RetentionPolicy.Recording(stream: entry.stream, lastWrite: entry.lastWrite, bytes: entry.bytes,
                                                      isEncoding: operations.isEncoding(entry.stream))
            guard case let .remove(reason) = policy.verdict(for: recording, now: now) else { continue }
            if operations.serves(entry.stream) {
                do {
                    try operations.removeStream(stream: entry.stream, reason: reason)
                } catch {
                    logger.error("retention could not remove the stream", metadata: ["stream": "\(entry.stream)", "error": "\(error.reason)"])
                }
            } else {
                let directory = StreamLayout(dataDirectory: dataDirectory, stream: entry.stream).streamDirectory
                do {
                    try FileManager.default.removeItem(atPath: directory)
                    logger.notice("retention deleted a recording no configured stream continues", metadata: ["recording": "\(directory)", "reason": "\(reason)"])
                } catch {
                    logger.error("retention could not delete a recording", metadata: ["recording": "\(directory)", "error": "\(error.localizedDescription)"])
                }
            }
        }
    }
}

/// Runs blocking work on a thread of its own, so no thread of Swift concurrency's pool waits.
public func onOwnThread(_ work: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread {
            work()
            continuation.resume()
        }.start()
    }
}
