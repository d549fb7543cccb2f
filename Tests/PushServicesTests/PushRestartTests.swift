import Foundation
import HLSPlaylist
import Logging
import PushServices
import SidelineCore
import StreamPushing
import Synchronization
import Testing

/// Push killed after a segment went up and before its playlist, then started again over the
/// same queue directory: what was acknowledged is not sent again, the rest goes up, every slot
/// is listed once. The queue on disk and the uploader's decisions together, in milliseconds.
@Suite struct PushRestartTests {
    /// A server's ingest that answers at once; it lists what a playlist names, and notes a slot
    /// named again after it was listed. `killAfter`: the upload after which push is killed.
    final class Ingest: IngestUploading {
        let listed = Mutex<[String: [Int]]>([:])
        let twice = Mutex<[String]>([])
        let killAfter = Mutex<(path: String, kill: @Sendable () -> Void)?>(nil)

        func put(_ path: String, body: [UInt8], contentType: String, timeout: Double) async -> IngestAnswer {
            if Task.isCancelled { return IngestAnswer(status: nil, reason: "killed") }
            defer {
                if let (after, kill) = killAfter.withLock({ $0 }), after == path { kill() }
            }
            guard path.hasSuffix("index.m3u8"), let playlist = try? MediaPlaylist.parse(String(decoding: body, as: UTF8.self)) else {
                return IngestAnswer(status: 201, reason: "")
            }
            let variant = String(path.prefix { $0 != "/" })
            listed.withLock { listed in
                for (offset, entry) in playlist.segments.enumerated() where !entry.gap {
                    let slot = playlist.mediaSequence + offset
                    if listed[variant, default: []].contains(slot) { twice.withLock { $0.append("\(variant) \(slot)") } }
                    listed[variant, default: []].append(slot)
                }
            }
            return IngestAnswer(status: 200, reason: "")
        }
    }

    static let variants = ["720p", "360p"]
    static let settings = PushUploader.Settings(rungs: [.init(name: "720p", bitRate: 2_000_000), .init(name: "360p", bitRate: 600_000)],
                                                peakBitRates: [:], segmentDuration: 2, targetDuration: 2, audioBitRate: 64_000, rule: UploadBitRate(),
                                                minimum: 150_000, maximum: 2_600_000, backlog: .catchUp, metadata: nil)

    static func uploader(_ directory: PushQueueDirectory, _ queue: PushQueue, _ ingest: Ingest) -> PushUploader {
        PushUploader(settings: settings, queue: queue, transport: ingest, store: directory, clock: { 0 },
                     sleep: MonotonicClock.sleep, report: { _ in })
    }

    static func encode(_ slots: [Int], into uploader: PushUploader) {
        for slot in slots {
            for variant in variants {
                let segment = PushQueue.Segment(slot: slot, duration: 2, programDateTime: Date(timeIntervalSince1970: 1_800_000_000 + Double(slot) * 2), bytes: 188)
                uploader.segmentFinished([UInt8](repeating: 0x47, count: 188), as: segment, of: variant)
            }
        }
    }

    @Test func aRestartSendsWhatWasQueuedAndNothingTwice() async throws {
        let root = NSTemporaryDirectory() + "sideline-restart-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let logger = Logger(label: "test")
        let ingest = Ingest()

        // The first run: slots 0 to 4 made; killed once 720p's slot 3 went up, before its playlist.
        let (first, empty) = try PushQueueDirectory.open(path: root, segmentDuration: 2, variants: Self.variants, now: Date(), logger: logger)
        #expect(empty.isEmpty)
        let run = Self.uploader(first, empty, ingest)
        Self.encode(Array(0..<5), into: run)
        let task = Task { try await run.run() }
        ingest.killAfter.withLock { $0 = ("720p/00000003.ts", { task.cancel() }) }
        try await task.value
        #expect(ingest.listed.withLock { $0 } == ["720p": [0, 1, 2], "360p": [0, 1, 2]])
        // A segment cut off between its two files: removed at the restart, never sent.
        try Data([0x47]).write(to: URL(fileURLWithPath: root + "/720p/00000007.ts"))

        // The restart: the queue comes back from disk; the new run's segments start at slot 9.
        let (second, queue) = try PushQueueDirectory.open(path: root, segmentDuration: 2, variants: Self.variants, now: Date(), logger: logger)
        #expect(queue.count == 4 && queue.acknowledgedUpTo == ["720p": 2, "360p": 2])
        #expect(second.timeline == first.timeline, "numbered on the same timeline")
        ingest.killAfter.withLock { $0 = nil }
        let again = Self.uploader(second, queue, ingest)
        Self.encode([9, 10], into: again)
        again.encoderFinished()
        try await again.run()
        #expect(ingest.twice.withLock { $0 }.isEmpty, "\(ingest.twice.withLock { $0 })")
        for variant in Self.variants {
            #expect(ingest.listed.withLock { $0[variant] } == [0, 1, 2, 3, 4, 9, 10])
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(root)/\(variant)").isEmpty, "every file of \(variant) gone once listed")
        }
        let state = try String(contentsOfFile: root + "/state.json", encoding: .utf8)
        #expect(state.contains("\"360p\":10") && state.contains("\"720p\":10"), "\(state)")
    }
}
