import Foundation
import HLSPlaylist
import Logging
import SegmentStore
import SidelineConfig
import SidelineCore
import StreamServices
import Testing

/// Where an angle set's timeline is kept (`<data_dir>/<set>/set-timeline.json`), over a
/// temporary data directory each: made the first time an angle asks, the same for every
/// angle after; read back while an angle has a recording on it; made anew when none has.
@Suite struct SetTimelineStoreTests {
    let logger = Logger(label: "test")
    static let epochMilliseconds: Int64 = 1_800_000_000_000

    func configuration() -> SidelineConfiguration {
        var configuration = SidelineConfiguration.defaults
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("set-timeline-\(UUID().uuidString)").path
        var wide = configuration.streams[0]
        wide.name = "wide"
        var goal = wide
        goal.name = "goal"
        configuration.streams = [wide, goal]
        configuration.angleSets = [AngleSetSettings(name: "match", streams: ["wide", "goal"])]
        return configuration
    }

    func kept(_ configuration: SidelineConfiguration) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: "\(configuration.dataDirectory)/match/set-timeline.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func keep(epochMilliseconds: Int64, in configuration: SidelineConfiguration) throws {
        try FileManager.default.createDirectory(atPath: "\(configuration.dataDirectory)/match", withIntermediateDirectories: true)
        let json = #"{"epoch_unix_ms":\#(epochMilliseconds),"segment_duration":\#(configuration.segmentDuration)}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: "\(configuration.dataDirectory)/match/set-timeline.json"))
    }

    /// An entry of `stream`'s recording dated `date` (its first entry: slot 0).
    func record(_ stream: String, dated date: Date, in configuration: SidelineConfiguration) throws {
        let layout = StreamLayout(dataDirectory: configuration.dataDirectory, stream: stream)
        let ladder = configuration.streams[0].video.ladder.map(\.name)
        let recorder = try StreamRecorder(layout: layout, variantNames: ladder, targetDuration: 2, logger: logger)
        for (_, variant) in recorder.variants {
            _ = variant.list(.gap, duration: 2, programDateTime: date, discontinuity: false, dateRanges: [])
        }
    }

    func plan(_ stream: Int, _ configuration: SidelineConfiguration) -> ServePlan {
        ServePlan(configuration: configuration, stream: configuration.streams[stream], realtime: true)
    }

    @Test func madeOnceAndSharedByEveryAngle() throws {
        let configuration = configuration()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let first = try #require(plan(0, configuration).setTimeline(logger: logger))
        let file = try kept(configuration)
        let epoch = try #require(file["epoch_unix_ms"] as? Int64)
        // The next multiple of D since 1970.
        let period = Int64(configuration.segmentDuration * 1000)
        #expect(epoch % period == 0 && epoch >= before && epoch <= Int64(Date().timeIntervalSince1970 * 1000) + period)
        #expect(file["segment_duration"] as? Double == configuration.segmentDuration)
        let second = try #require(plan(1, configuration).setTimeline(logger: logger))
        #expect("\(first)" == "\(second)")
        var alone = configuration
        alone.angleSets = []
        #expect(plan(0, alone).setTimeline(logger: logger) == nil, "a stream in no set has none")
    }

    /// A restarted server: the kept epoch, since an angle recorded on it.
    @Test func readBackWhileAnAngleHasARecording() throws {
        let configuration = configuration()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        try keep(epochMilliseconds: Self.epochMilliseconds, in: configuration)
        try record("goal", dated: Date(timeIntervalSince1970: 1_800_000_000), in: configuration)
        let timeline = try #require(plan(0, configuration).setTimeline(logger: logger))
        #expect("\(timeline)".contains("2027-01-15 08:00:00"), "\(timeline)")
        #expect(try kept(configuration)["epoch_unix_ms"] as? Int64 == Self.epochMilliseconds)
    }

    /// No angle has a recording any more (retention removed them): the kept epoch meant
    /// recordings that are gone, and a new one is made and kept.
    @Test func madeAnewWhenNoAngleHasARecording() throws {
        let configuration = configuration()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        try keep(epochMilliseconds: Self.epochMilliseconds, in: configuration)
        _ = try #require(plan(1, configuration).setTimeline(logger: logger))
        let epoch = try #require(try kept(configuration)["epoch_unix_ms"] as? Int64)
        #expect(abs(epoch - Int64(Date().timeIntervalSince1970 * 1000)) < 60_000)
    }

    /// Nothing kept, but a stream recorded before it joined the set: the set continues that
    /// recording's numbering (its entry 0 dated 10 s after 2027-01-15 08:00 is slot 0).
    @Test func continuedFromARecording() throws {
        let configuration = configuration()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        try record("wide", dated: Date(timeIntervalSince1970: 1_800_000_010), in: configuration)
        _ = try #require(plan(1, configuration).setTimeline(logger: logger))
        #expect(try kept(configuration)["epoch_unix_ms"] as? Int64 == Self.epochMilliseconds + 10_000)
    }
}
