import Foundation
import HLSPlaylist
import Logging
import SegmentStore
import Testing

func temporaryDirectory(_ label: String = #function) throws -> String {
    let path = NSTemporaryDirectory() + "sideline-tests-\(label.filter(\.isLetter))-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func segment(_ index: Int, bytes: Int = 1880, discontinuity: Bool = false) -> EncodedSegment {
    EncodedSegment(index: index, duration: 2.0, startTime: Double(index) * 2, programDateTime: Date(timeIntervalSince1970: 1_795_215_600 + Double(index) * 2),
                   bytes: [UInt8](repeating: UInt8(index & 0xFF), count: bytes), discontinuity: discontinuity)
}

@Suite struct AtomicFileTests {
    @Test func writesWholeFilesAndLeavesNoTemporaries() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/index.m3u8"
        try AtomicFile.write("first\n", to: path)
        try AtomicFile.write("second version\n", to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second version\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["index.m3u8"])
    }

    @Test func failureNamesThePathAndKeepsTheOldFile() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/missing-dir/index.m3u8"
        #expect {
            try AtomicFile.write("x", to: path)
        } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("No such file")
        }
    }
}

@Suite struct StreamRecorderTests {
    let logger = Logger(label: "test")

    @Test func segmentsAreOnDiskBeforeThePlaylistListsThem() throws {
        let data = try temporaryDirectory()
        let layout = StreamLayout(dataDirectory: data, stream: "main")
        let recorder = try StreamRecorder(layout: layout, variantNames: ["720p"], targetDuration: 2, logger: logger)
        let variant = try #require(recorder.variants["720p"])
        for index in 0..<3 {
            let recorded = variant.record(segment(index))
            #expect(recorded.sequence == index)
            let onDisk = try MediaPlaylist.parse(try String(contentsOfFile: layout.mediaPlaylistPath("720p"), encoding: .utf8))
            for listed in onDisk.segments {
                #expect(FileManager.default.fileExists(atPath: layout.segmentPath("720p", listed.uri)), "\(listed.uri) is listed, so it must exist")
            }
            #expect(onDisk.segments.count == index + 1)
        }
        let playlist = try MediaPlaylist.parse(try String(contentsOfFile: layout.mediaPlaylistPath("720p"), encoding: .utf8))
        #expect(playlist.segments.map(\.uri) == ["000000.ts", "000001.ts", "000002.ts"])
        #expect(playlist.playlistType == .event)
        #expect(!playlist.endList)
        try variant.end()
        let ended = try MediaPlaylist.parse(try String(contentsOfFile: layout.mediaPlaylistPath("720p"), encoding: .utf8))
        #expect(ended.endList)
        #expect(try Data(contentsOf: URL(fileURLWithPath: layout.segmentPath("720p", "000002.ts"))) == Data(segment(2).bytes))
    }

    /// Writes that fail (a full disk, an I/O error) never stop the recording or tear a file:
    /// a segment that cannot be written is listed as EXT-X-GAP, a playlist that cannot be
    /// written stays as it was on disk and catches up at the next write that succeeds. The
    /// failures are made by putting a directory where a file must go (renaming onto it fails).
    @Test func failedWritesBecomeGapsAndTheDiskCatchesUp() throws {
        let data = try temporaryDirectory()
        let layout = StreamLayout(dataDirectory: data, stream: "main")
        let recorder = try StreamRecorder(layout: layout, variantNames: ["720p"], targetDuration: 2, logger: logger)
        let variant = try #require(recorder.variants["720p"])
        #expect(variant.record(segment(0)).diskError == nil)

        // Segment 1 cannot be written: listed as a GAP, never as a missing file.
        try FileManager.default.createDirectory(atPath: layout.segmentPath("720p", "000001.ts"), withIntermediateDirectories: false)
        let failed = variant.record(segment(1))
        #expect(!failed.segmentWritten && failed.segment.gap && failed.diskError != nil)
        var onDisk = try MediaPlaylist.parse(try String(contentsOfFile: layout.mediaPlaylistPath("720p"), encoding: .utf8))
        #expect(onDisk.segments.map(\.gap) == [false, true])

        // The playlist itself cannot be written: the copy on disk stays whole and as it was.
        let playlistPath = layout.mediaPlaylistPath("720p")
        let before = try String(contentsOfFile: playlistPath, encoding: .utf8)
        try FileManager.default.removeItem(atPath: playlistPath)
        try FileManager.default.createDirectory(atPath: playlistPath, withIntermediateDirectories: false)
        let unlisted = variant.record(segment(2))
        #expect(unlisted.segmentWritten && unlisted.diskError != nil)
        #expect(unlisted.playlistText.contains("000002.ts"), "the playlist in memory (served) is up to date")

        // Space is back: the next write brings the disk up to date, every entry in order.
        try FileManager.default.removeItem(atPath: playlistPath)
        #expect(!before.isEmpty)
        let recovered = variant.record(segment(3))
        #expect(recovered.diskError == nil)
        onDisk = try MediaPlaylist.parse(try String(contentsOfFile: playlistPath, encoding: .utf8))
        #expect(onDisk.segments.map(\.uri) == ["000000.ts", "000001.ts", "000002.ts", "000003.ts"])
        #expect(onDisk.segments.map(\.gap) == [false, true, false, false])
        for listed in onDisk.segments where !listed.gap {
            #expect(try Data(contentsOf: URL(fileURLWithPath: layout.segmentPath("720p", listed.uri))).count == 1880)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: layout.variantDirectory("720p"))
        #expect(!names.contains { $0.hasPrefix(".tmp-") }, "no temporary file is left behind: \(names)")
    }

    @Test func aRestartContinuesTheRecordingAfterADiscontinuity() throws {
        let data = try temporaryDirectory()
        let layout = StreamLayout(dataDirectory: data, stream: "main")
        do {
            let first = try StreamRecorder(layout: layout, variantNames: ["720p"], targetDuration: 2, logger: logger)
            _ = first.variants["720p"]!.record(segment(0))
            _ = first.variants["720p"]!.record(segment(1))
            try first.variants["720p"]!.end()
        }
        // A crash leaves a temporary file behind; the restart removes it.
        _ = FileManager.default.createFile(atPath: layout.variantDirectory("720p") + "/\(AtomicFile.temporaryPrefix)000002.ts.123", contents: Data([1, 2]))
        let second = try StreamRecorder(layout: layout, variantNames: ["720p"], targetDuration: 2, logger: logger)
        let recorded = second.variants["720p"]!.record(segment(0))
        #expect(recorded.name == "000002.ts", "numbering continues; nothing is overwritten")
        let playlist = try MediaPlaylist.parse(recorded.playlistText)
        #expect(playlist.segments.map(\.uri) == ["000000.ts", "000001.ts", "000002.ts"])
        #expect(playlist.segments.map(\.discontinuity) == [false, false, true])
        #expect(!playlist.endList, "a continued recording is live again")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: layout.variantDirectory("720p")).filter { $0.hasPrefix(AtomicFile.temporaryPrefix) }
        #expect(leftovers.isEmpty)
        #expect(second.archivedPreviousRecording == nil)
    }

    /// A late segment replaces a stand-in in the recording: its file beside the entry's, the
    /// playlist on disk only grown by the replacement's date range, and a restart reads it back.
    @Test func aLateSegmentReplacesAnEntryOnDiskAndSurvivesARestart() throws {
        let data = try temporaryDirectory()
        let layout = StreamLayout(dataDirectory: data, stream: "main")
        do {
            let recorder = try StreamRecorder(layout: layout, variantNames: ["720p"], targetDuration: 2, logger: logger)
            let variant = recorder.variants["720p"]!
            for index in 0..<3 { _ = variant.record(segment(index)) }
            let before = try String(contentsOfFile: layout.mediaPlaylistPath("720p"), encoding: .utf8)
            let real = [UInt8](repeating: 0x47, count: 188 * 4)
            let replaced = try variant.replace(entry: 1, with: real, keyframeRanges: [0..<376], duration: 2.002).get()
            #expect(replaced.replacement.uri == "000001-late.ts")
            #expect(replaced.replacement.startDate == segment(1).programDateTime)
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: layout.segmentPath("720p", "000001-late.ts")))) == real)
            let after = try String(contentsOfFile: layout.mediaPlaylistPath("720p"), encoding: .utf8)
            #expect(after.hasPrefix(before), "the live playlist only grows")
            #expect(after == replaced.playlist.text)
            #expect(variant.replace(entry: 1, with: real, keyframeRanges: [], duration: 2).failure == .alreadyReplaced("000001.ts"))
            #expect(variant.replace(entry: 7, with: real, keyframeRanges: [], duration: 2).failure == .noSuchEntry(7))
            #expect(try String(contentsOfFile: layout.segmentPath("720p", "000001.ts"), encoding: .isoLatin1).count == 1880, "the stand-in stays")
        }
        let again = try StreamRecorder(layout: layout, variantNames: ["720p"], targetDuration: 2, logger: logger)
        let recording = again.variants["720p"]!.playlist.applyingReplacements()
        #expect(recording.segments.map(\.uri) == ["000000.ts", "000001-late.ts", "000002.ts"])
    }

    /// The universal grid (issue 35): an empty recording is numbered from its first slot; a
    /// long absence's GAP entries are listed together, the playlist written once; a restart
    /// reads the numbers back; an entry's late replacement is found by its number.
    @Test func aRecordingNumberedFromItsSlotListsGapsTogetherAndKeepsItsNumbers() throws {
        let data = try temporaryDirectory()
        let layout = StreamLayout(dataDirectory: data, stream: "main")
        let slot = 897_980_400
        do {
            let recorder = try StreamRecorder(layout: layout, variantNames: ["720p"], targetDuration: 2, logger: logger)
            let variant = recorder.variants["720p"]!
            #expect(variant.startNumbering(at: slot))
            let first = variant.record(segment(0))
            #expect(first.name == "897980400.ts" && first.sequence == slot)
            let gaps = variant.listGaps((1...3).map { (2.0, segment($0).programDateTime, false) })
            #expect(gaps.names == ["897980401.ts", "897980402.ts", "897980403.ts"])
            #expect(gaps.playlist.playlist.segments.dropFirst().allSatisfy { $0.gap })
            #expect(try String(contentsOfFile: layout.mediaPlaylistPath("720p"), encoding: .utf8) == gaps.playlist.text, "written once, with all of them")
            #expect(!variant.startNumbering(at: 5), "a listed entry keeps its number")
            let replaced = variant.replace(entry: slot + 2, with: [UInt8](repeating: 0x47, count: 376), keyframeRanges: [0..<188], duration: 2)
            #expect((try? replaced.get())?.replacement.uri == "897980402-late.ts")
        }
        // Restarted with a rung added: the new rung is numbered as its sibling, its missing
        // entries GAP entries under the sibling's numbers.
        let again = try StreamRecorder(layout: layout, variantNames: ["720p", "360p"], targetDuration: 2, logger: logger)
        #expect(again.variants["720p"]!.playlist.mediaSequence == slot)
        #expect(again.variants["360p"]!.playlist.mediaSequence == slot)
        #expect(again.variants["360p"]!.playlist.segments.map(\.uri) == again.variants["720p"]!.playlist.segments.map(\.uri))
        #expect(again.variants["720p"]!.record(segment(4)).name == "897980404.ts")
        #expect(again.variants["360p"]!.record(segment(4)).name == "897980404.ts")
        // A continuation refused (`continuing`): the recording is kept aside, a new one begins.
        let refused = try StreamRecorder(layout: layout, variantNames: ["720p"], targetDuration: 2, continuing: { _ in "off the grid" }, logger: logger)
        #expect(refused.variants["720p"]!.count == 0)
        #expect(refused.archivedPreviousRecording.map { FileManager.default.fileExists(atPath: $0 + "/720p/index.m3u8") } == true)
    }

    @Test func aRecordingWithAnotherTargetDurationIsMovedAsideNotLost() throws {
        let data = try temporaryDirectory()
        let layout = StreamLayout(dataDirectory: data, stream: "main")
        do {
            let first = try StreamRecorder(layout: layout, variantNames: ["720p"], targetDuration: 2, logger: logger)
            _ = first.variants["720p"]!.record(segment(0))
        }
        let second = try StreamRecorder(layout: layout, variantNames: ["720p"], targetDuration: 6, logger: logger)
        let archived = try #require(second.archivedPreviousRecording)
        #expect(FileManager.default.fileExists(atPath: archived + "/720p/000000.ts"))
        #expect(second.variants["720p"]!.playlist.segments.isEmpty)
    }

    @Test func anUnwritableDataDirectoryIsRefusedUpFront() throws {
        let parent = try temporaryDirectory()
        _ = FileManager.default.createFile(atPath: parent + "/a-file", contents: Data())
        let layout = StreamLayout(dataDirectory: parent + "/a-file/data", stream: "main")
        #expect {
            try StreamRecorder(layout: layout, variantNames: ["720p"], targetDuration: 2, logger: logger)
        } throws: { error in
            "\(error)".contains(parent + "/a-file/data") && "\(error)".contains("not writable")
        }
    }

    @Test func segmentNamesSortInSequenceOrder() {
        #expect(StreamLayout.segmentName(sequence: 0) == "000000.ts")
        #expect(StreamLayout.segmentName(sequence: 42) == "000042.ts")
        #expect(StreamLayout.segmentName(sequence: 1_234_567) == "1234567.ts")
    }
}

@Suite struct HeldSegmentFilesTests {
    @Test func onlyWholeSegmentFilesCountAndTemporariesAreRemoved() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("held-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let layout = StreamLayout(dataDirectory: directory, stream: "main")
        #expect(try layout.wholeSegmentFiles("720p").isEmpty, "a missing directory is made, and holds nothing")
        try AtomicFile.write([UInt8](repeating: 0x47, count: 376), to: layout.segmentPath("720p", "000000.ts"))
        try AtomicFile.write("#EXTM3U\n", to: layout.mediaPlaylistPath("720p"))
        let cutShort = layout.segmentPath("720p", AtomicFile.temporaryPrefix + "000001.ts.123.456")
        _ = FileManager.default.createFile(atPath: cutShort, contents: Data([0x47]))
        _ = FileManager.default.createFile(atPath: layout.segmentPath("720p", "000002.ts"), contents: Data())
        #expect(try layout.wholeSegmentFiles("720p") == ["000000.ts": 376], "not the playlist, the empty file or the temporary")
        #expect(!FileManager.default.fileExists(atPath: cutShort))
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
