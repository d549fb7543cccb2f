import Logging
import MediaPipeline
@testable import PushServices
import SidelineCore
import StreamPushing
import Synchronization
import Testing

/// The uploader's reports carried out: the plan into the encoders' rates (nil: the configured
/// one), and the log lines operators read, at the level the change deserves.
@Suite struct PushEventLogTests {
    /// Every line logged, with its level.
    final class Lines: Sendable {
        let lines = Mutex<[(Logger.Level, String)]>([])
        struct Handler: LogHandler {
            let lines: Lines
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                lines.lines.withLock { $0.append((event.level, "\(event.message) \(fields)")) }
            }
        }
        var logger: Logger { Logger(label: "test") { _ in Handler(lines: self) } }
        var all: [(Logger.Level, String)] { lines.withLock { $0 } }
    }

    static let ladder = [Rung(name: "720p", width: 1280, height: 720, bitrate: .kbps(2000), maxrate: .kbps(3000), bufsize: .kbps(4000), preset: "veryfast", profile: "high"),
                         Rung(name: "360p", width: 640, height: 360, bitrate: .kbps(600), maxrate: .kbps(900), bufsize: .kbps(1200), preset: "veryfast", profile: "main")]

    @Test func aPlanSetsTheEncodersRatesAndSaysWhenItMatters() {
        let lines = Lines()
        let bitRates = BitRateControl()
        let log = PushEventLog(ladder: Self.ladder, bitRates: bitRates, timings: nil, logger: lines.logger)
        let full = PushLadder.Plan(sent: [.init(name: "720p", bitRate: 2_000_000), .init(name: "360p", bitRate: 600_000)], dropped: [])
        let alone = PushLadder.Plan(sent: [.init(name: "720p", bitRate: 900_000)], dropped: ["360p"])
        log.handle(.planChanged(PushPlanChange(plan: alone, measured: nil, before: nil)))
        #expect(bitRates.rate(for: "720p") == 900_000 && bitRates.rate(for: "360p") == nil)
        #expect(lines.all.last?.0 == .notice)
        #expect(lines.all.last?.1.hasPrefix("uplink slower than the plan: an upload is taking too long; video bit rates step down") == true)
        #expect(lines.all.last?.1.contains("dropped=360p") == true && lines.all.last?.1.contains("rungs=720p=900k") == true)
        // A small move: the rates follow, the log says it at debug.
        let nudged = PushLadder.Plan(sent: [.init(name: "720p", bitRate: 950_000)], dropped: ["360p"])
        log.handle(.planChanged(PushPlanChange(plan: nudged, measured: 1_400_000, before: alone)))
        #expect(lines.all.last?.0 == .debug && lines.all.last?.1.hasPrefix("uplink changed: video bit rates follow") == true)
        // Back to the configured rates: nil, the encoders' own.
        log.handle(.planChanged(PushPlanChange(plan: full, measured: 9_000_000, before: nudged)))
        #expect(bitRates.rate(for: "720p") == nil && bitRates.rate(for: "360p") == nil)
        #expect(lines.all.last?.0 == .notice)
    }

    @Test func failuresAreWordedOnceAndUploadTimesRecorded() {
        let lines = Lines()
        let log = PushEventLog(ladder: Self.ladder, bitRates: BitRateControl(), timings: nil, logger: lines.logger)
        log.handle(.uploadFailing(upload: "segment 720p/00000001.ts", status: nil, reason: "connection refused"))
        log.handle(.uploadsRecovered)
        log.handle(.segmentUploaded(variant: "720p", slot: 1, seconds: 0.25))
        #expect(lines.all.map(\.0) == [.warning, .notice])
        #expect(lines.all[0].1.hasPrefix("upload failed; retrying (the segments wait in the queue)") && lines.all[0].1.contains("status=none"))
        #expect(lines.all[1].1.hasPrefix("uploads go through again"))
        #expect(log.uploadTimes.count == 1)
    }
}
