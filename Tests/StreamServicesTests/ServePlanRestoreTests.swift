import Foundation
import HLSPlaylist
import Logging
import OriginPolicy
import OriginRegistry
import OriginState
import SegmentStore
import SidelineConfig
import SidelineCore
import StreamServices
import Testing

/// `ServePlan`'s restore from disk, over a temporary data directory: a recording an earlier
/// run left (written with the project's own `StreamRecorder`) is served again from the
/// registry with its segments, gaps, late replacements, markers and phase, before any input
/// is opened; a removed stream answers as removed. No FFmpeg: no stand-in is encoded.
@Suite struct ServePlanRestoreTests {
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("serve-plan-restore-\(UUID().uuidString)").path
    let plan: ServePlan
    let logger = Logger(label: "test")
    let variants: [String]

    init() {
        var configuration = SidelineConfiguration.defaults
        configuration.dataDirectory = data
        let stream = configuration.streams[0]
        plan = ServePlan(configuration: configuration, stream: stream, realtime: true)
        variants = stream.video.ladder.map(\.name)
    }

    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    func segment(_ index: Int, bytes count: Int) -> EncodedSegment {
        EncodedSegment(index: index, duration: 2, startTime: Double(index) * 2, programDateTime: Self.start.addingTimeInterval(Double(index) * 2),
                       bytes: [UInt8](repeating: 0x47, count: count), keyframeRanges: [0..<188])
    }

    /// What an earlier run leaves: three entries per variant (the second a GAP, later replaced
    /// by a late real segment), the master, and one marker.
    func recordEarlierRun(ended: Bool = false) throws {
        let recorder = try StreamRecorder(layout: plan.layout, variantNames: variants, targetDuration: plan.targetDuration, logger: logger)
        for (name, variant) in recorder.variants {
            _ = variant.record(segment(0, bytes: 1880))
            _ = variant.list(.gap, duration: 2, programDateTime: Self.start.addingTimeInterval(2), discontinuity: false, dateRanges: [])
            _ = variant.record(segment(2, bytes: 3760))
            guard case .success = variant.replace(entry: 1, with: [UInt8](repeating: 0x47, count: 940), keyframeRanges: [0..<188], duration: 2) else {
                Issue.record("\(name): the late segment was not taken")
                return
            }
            if ended { _ = try variant.end() }
        }
        try recorder.writeMasterPlaylist("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000000,CODECS=\"avc1.64001f\"\n\(variants[0])/index.m3u8\n")
        try MarkerFile.save([Marker(id: "goal", label: "Goal", time: Self.start.addingTimeInterval(3), created: Self.start, listedBefore: 2)], in: plan.layout)
    }

    @Test func aRecordingLeftOnDiskIsServedWithItsSegmentsGapsReplacementsAndMarkers() throws {
        defer { try? FileManager.default.removeItem(atPath: data) }
        try recordEarlierRun()
        #expect(plan.hasRecording && !plan.isRemoved)
        let registry = StreamRegistry()
        _ = try plan.makePublisher(registry: registry, withStandIns: false, logger: logger)
        let stream = try registry.existing(plan.stream.name)
        // The master was there: the stream is live again at once, before its input is opened.
        #expect(stream.phase == .live)
        #expect(stream.markers.map(\.id) == ["goal"])
        #expect(Set(stream.variants.keys) == Set(variants))
        for name in variants {
            let variant = try #require(stream.variants[name])
            #expect(variant.recording?.segments.count == 3, "\(name)")
            #expect(variant.recording?.endList == false, "\(name)")
            let listed = try #require(variant.recording?.segments.map(\.uri))
            #expect(variant.gaps == [listed[1]], "\(name): the GAP entry is still one")
            // Each entry's file, and the late segment that replaced the GAP in the recording.
            let late = SegmentReplacement.fileName(replacing: listed[1])
            #expect(Set(variant.segments.keys) == [listed[0], listed[2], late], "\(name)")
            #expect(variant.segments[listed[0]]?.size == 1880 && variant.segments[listed[2]]?.size == 3760 && variant.segments[late]?.size == 940, "\(name)")
            #expect(variant.segments[listed[2]]?.path == plan.layout.segmentPath(name, listed[2]), "\(name)")
            // Counted from the files: the status /api/streams shows after a restart.
            #expect(variant.status.recorded.bytes >= 1880 + 3760, "\(name)")
            #expect(registry.playlistText(stream: plan.stream.name, variant: name)?.contains("#EXT-X-GAP") == true, "\(name)")
        }
    }

    /// `sideline admin end` closed it; the config still names it, so a restart continues it
    /// (Docs/operations.md, "admin end"): served open again, with everything it recorded.
    @Test func anEndedRecordingIsContinuedWithEverythingItRecorded() throws {
        defer { try? FileManager.default.removeItem(atPath: data) }
        try recordEarlierRun(ended: true)
        let registry = StreamRegistry()
        _ = try plan.makePublisher(registry: registry, withStandIns: false, logger: logger)
        let stream = try registry.existing(plan.stream.name)
        #expect(stream.phase == .live)
        for name in variants {
            #expect(stream.variants[name]?.recording?.segments.count == 3 && stream.variants[name]?.recording?.endList == false, "\(name)")
        }
    }

    @Test func nothingOnDiskIsANewStreamStarting() throws {
        defer { try? FileManager.default.removeItem(atPath: data) }
        #expect(!plan.hasRecording)
        let registry = StreamRegistry()
        _ = try plan.makePublisher(registry: registry, withStandIns: false, logger: logger)
        let stream = try registry.existing(plan.stream.name)
        #expect(stream.phase == .starting)
        #expect(stream.variants.values.allSatisfy { $0.recording?.segments.isEmpty ?? true })
    }

    @Test func aRemovedStreamAnswersAsRemoved() throws {
        defer { try? FileManager.default.removeItem(atPath: data) }
        try recordEarlierRun()
        try StreamTombstone.remove(plan.layout, reason: "test")
        #expect(plan.isRemoved && !plan.hasRecording)
        let registry = StreamRegistry()
        plan.registerRemoved(in: registry)
        #expect(throws: Refusal.self) { try registry.existing(plan.stream.name) }
        do {
            _ = try registry.existing(plan.stream.name)
        } catch {
            #expect(error.status == 410)
        }
        #expect(registry.stream(named: plan.stream.name)?.variants.isEmpty == true)
    }
}
