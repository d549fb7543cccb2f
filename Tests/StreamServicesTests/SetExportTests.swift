import Foundation
import HLSPlaylist
import OriginPolicy
import SegmentStore
import SidelineConfig
import SidelineCore
import StreamServices
import TestSupport
import Testing
import ZIPFoundation

/// `sideline export <set>` (`ClipExport.writeSet`) over a data directory on disk: one MP4 per
/// angle into a directory, or the ZIP, every angle cut at the same program date-times. "goal"
/// started a slot late and its files are wide's from slot 1, so the same moment gives the same
/// packets. The remux blocks, so it runs on a thread of its own here.
@Suite struct SetExportTests {
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// wide: slots 0-3; goal: slots 1-3; as `serve` records them (index.m3u8 and segments).
    static func recordings(in data: String) async throws {
        let source = data + "/source"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        let files = try await SetClipZipTests.segments(in: source)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for (angle, late) in [("wide", 0), ("goal", 1)] {
            let layout = StreamLayout(dataDirectory: data, stream: angle)
            try FileManager.default.createDirectory(atPath: layout.variantDirectory("720p"), withIntermediateDirectories: true)
            let entries = (late..<4).map { MediaSegment(uri: String(format: "%06d.ts", $0), duration: 2, programDateTime: start.addingTimeInterval(Double(2 * $0))) }
            for entry in entries { try FileManager.default.copyItem(atPath: "\(source)/\(entry.uri)", toPath: layout.segmentPath("720p", entry.uri)) }
            try MediaPlaylist(targetDuration: 2, mediaSequence: late, segments: entries, endList: true).render().write(toFile: layout.mediaPlaylistPath("720p"), atomically: true, encoding: .utf8)
        }
        _ = files
    }

    static func packets(_ mp4: String) async throws -> String {
        try await SetClipZipTests.probe(["-select_streams", "v:0", "-show_entries", "packet=pts_time,size,flags", "-of", "csv=p=0", mp4])
    }

    @Test func aSetExportsEveryAngleAtTheSameMomentAsFilesOrAZip() async throws {
        let data = try makeTemporaryDirectory("set-export")
        defer { try? FileManager.default.removeItem(atPath: data) }
        try await Self.recordings(in: data)
        let window = TimeWindow(start: .offset(2.5), end: .offset(5.5))
        let directory = data + "/out"
        let lines = try await Self.offPool {
            try ClipExport.writeSet("match", angles: ["wide", "goal"], variant: nil, window: window, dataDirectory: data, to: directory)
        }
        #expect(lines.count == 2 && lines[0].hasPrefix(directory + "/match-wide.mp4: 3.5"), "\(lines)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["match-goal.mp4", "match-wide.mp4"])
        let wide = try await Self.packets(directory + "/match-wide.mp4")
        let goal = try await Self.packets(directory + "/match-goal.mp4")
        #expect(!wide.isEmpty && wide == goal)
        #expect(try FileManager.default.contentsOfDirectory(atPath: data).filter { $0.hasPrefix(".") }.isEmpty, "no partial files left")

        let zip = data + "/play.zip"
        _ = try await Self.offPool {
            try ClipExport.writeSet("match", angles: ["wide", "goal"], variant: nil, window: window, dataDirectory: data, to: zip)
        }
        let archive = try Archive(url: URL(fileURLWithPath: zip), accessMode: .read)
        #expect(Array(archive).map(\.path) == ["match-wide.mp4", "match-goal.mp4"])
        #expect(Array(archive).allSatisfy { $0.compressedSize == $0.uncompressedSize })
        #expect(try FileManager.default.contentsOfDirectory(atPath: data).filter { $0.hasPrefix(".") }.isEmpty)

        // An angle with no recording refuses the whole export, naming it; nothing is written.
        await #expect(throws: SidelineStartupError.self) {
            try await Self.offPool { try ClipExport.writeSet("match", angles: ["wide", "nope"], variant: nil, window: window, dataDirectory: data, to: data + "/none") }
        }
        #expect(!FileManager.default.fileExists(atPath: data + "/none"))
    }

    /// On a box of several (issue 35, `boxes`): this box's angles only, and a line naming the
    /// angle another box encodes, to export there.
    @Test func aSetWithAnAngleOnAnotherBoxExportsThisBoxsAnglesAndNamesTheOther() async throws {
        let data = try makeTemporaryDirectory("set-export-boxes")
        defer { try? FileManager.default.removeItem(atPath: data) }
        try await Self.recordings(in: data)
        let settings = try SidelineConfiguration.parse(yaml: """
            streams: [{name: wide, input: testpattern}, {name: goal, input: testpattern}]
            boxes: [{url: 'http://10.0.0.12:8080', streams: [tunnel]}]
            angle_sets: [{name: match, streams: [wide, tunnel, goal]}]
            """)
        let set = try #require(settings.angleSet(named: "match"))
        let directory = data + "/out"
        let window = TimeWindow(start: .offset(2.5), end: .offset(5.5))
        let lines = try await Self.offPool { try ClipExport.writeSet(set, of: settings, variant: nil, window: window, dataDirectory: data, to: directory) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["match-goal.mp4", "match-wide.mp4"])
        #expect(lines.count == 3 && lines[2].hasPrefix("not exported: tunnel, encoded by other boxes"), "\(lines)")
    }
}
