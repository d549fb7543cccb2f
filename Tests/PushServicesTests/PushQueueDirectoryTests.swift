import Foundation
import Logging
@testable import PushServices
import StreamPushing
import Testing

/// Push's queue holds footage before any gate sees it: its owner alone may read it.
@Suite struct PushQueueDirectoryTests {
    static func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }

    @Test func theQueueIsReadableByItsOwnerOnly() throws {
        let root = NSTemporaryDirectory() + "sideline-queue-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        // A queue an earlier version left readable by everyone is closed when opened.
        try FileManager.default.createDirectory(atPath: root + "/q", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let (directory, _) = try PushQueueDirectory.open(path: root + "/q", segmentDuration: 2, variants: ["720p"], now: Date(), logger: Logger(label: "test"))
        try directory.keep([0x47, 0, 0, 0], as: PushQueue.Segment(slot: 3, duration: 2, programDateTime: Date(), bytes: 4), of: "720p")
        #expect(try Self.mode(root + "/q") == 0o700)
        #expect(try Self.mode(root + "/q/720p") == 0o700)
        #expect(try Self.mode(root + "/q/state.json") == 0o600)
        let files = try FileManager.default.contentsOfDirectory(atPath: root + "/q/720p")
        #expect(files.count == 2)
        for file in files { #expect(try Self.mode(root + "/q/720p/" + file) == 0o600, "\(file)") }
    }

    /// A new queue's timeline is on the grid of multiples of D since 1970 (an angle set's);
    /// an existing queue keeps the one it numbered its segments on, wherever the clock is.
    @Test func aNewQueueCutsOnTheSetsGridAndAnExistingOneKeepsItsTimeline() throws {
        let root = NSTemporaryDirectory() + "sideline-queue-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let logger = Logger(label: "test")
        let first = Date(timeIntervalSince1970: 1_800_000_000.231)
        let (made, _) = try PushQueueDirectory.open(path: root + "/q", segmentDuration: 2, variants: ["720p"], now: first, logger: logger)
        #expect(made.timeline == PushTimeline(epoch: Date(timeIntervalSince1970: 1_800_000_002), segmentDuration: 2))
        let (reopened, _) = try PushQueueDirectory.open(path: root + "/q", segmentDuration: 2, variants: ["720p"], now: first.addingTimeInterval(61.7), logger: logger)
        #expect(reopened.timeline == made.timeline)
        // A queue an earlier version made (epoch at its first run's start) is kept as it is.
        let old = #"{"timeline":{"epoch":800000000.231,"segmentDuration":2},"acknowledgedUpTo":{}}"#
        try old.write(toFile: root + "/q/state.json", atomically: true, encoding: .utf8)
        let (kept, _) = try PushQueueDirectory.open(path: root + "/q", segmentDuration: 2, variants: ["720p"], now: first, logger: logger)
        #expect(abs(kept.timeline.epoch.timeIntervalSinceReferenceDate - 800_000_000.231) < 0.000_5, "\(kept.timeline.epoch)")
    }
}
