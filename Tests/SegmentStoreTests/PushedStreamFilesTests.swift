import Foundation
import SegmentStore
import Testing

/// The files a pushed stream keeps beside its recording, on a real temporary directory: each
/// kept file round-trips, received segments are kept, listed, read and removed with nothing
/// torn left, unplaced ones are counted, and taking a new ladder removes what the old one
/// recorded and nothing else.
@Suite struct PushedStreamFilesTests {
    struct Note: Codable, Equatable { var text: String }

    static func files() throws -> (PushedStreamFiles, String) {
        let data = NSTemporaryDirectory() + "pushed-files-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        return (PushedStreamFiles(layout: StreamLayout(dataDirectory: data, stream: "field")), data)
    }

    @Test(arguments: PushedStreamFiles.Kept.allCases)
    func eachKeptFileRoundTripsAndAnUnreadableOneIsNone(kept: PushedStreamFiles.Kept) throws {
        let (files, data) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: data) }
        #expect(files.load(Note.self, from: kept) == nil, "nothing kept yet")
        try files.keep(Note(text: "one"), as: kept)
        try files.keep(Note(text: "two"), as: kept)
        #expect(files.load(Note.self, from: kept) == Note(text: "two"))
        let directory = (files.path(of: kept) as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).allSatisfy { !$0.hasPrefix(AtomicFile.temporaryPrefix) }, "no temporary file left")
        try "{".write(toFile: files.path(of: kept), atomically: true, encoding: .utf8)
        #expect(files.load(Note.self, from: kept) == nil)
    }

    /// The shifts kept beside a received segment: none for one kept as pushed, the new file's
    /// and the replaced one's otherwise, unreadable as nil, and gone with the segment.
    @Test func aReceivedSegmentsStampsAreKeptBesideItAndGoWithIt() throws {
        let (files, data) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: data) }
        try files.keepReceived([0x47], variant: "360p", name: "a.ts", stamps: [ReceivedStamp(stamp: 0, firstPTS: 900)])
        #expect(files.receivedStamps(variant: "360p", name: "a.ts") == [])
        let kept = [ReceivedStamp(stamp: 7_000, firstPTS: 7_900), ReceivedStamp(stamp: 0, firstPTS: 900)]
        try files.keepReceived([0x47], variant: "360p", name: "a.ts", stamps: kept)
        #expect(files.receivedStamps(variant: "360p", name: "a.ts") == kept)
        #expect(files.receivedNames(variant: "360p") == ["a.ts"], "the sidecar is no received segment")
        try "[".write(toFile: files.receivedPath(variant: "360p", name: "a.ts") + ".stamp", atomically: true, encoding: .utf8)
        #expect(files.receivedStamps(variant: "360p", name: "a.ts") == nil)
        files.removeReceived(variant: "360p", name: "a.ts")
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.layout.ingestDirectory("360p")).isEmpty)
    }

    /// Which shift a file carries, told by where it starts.
    @Test(arguments: [
        ("nothing kept: as pushed", 900, [], 0),
        ("the new file", 7_900, [ReceivedStamp(stamp: 7_000, firstPTS: 7_900), ReceivedStamp(stamp: 0, firstPTS: 900)], 7_000),
        ("the file it was to replace (the write failed)", 900, [ReceivedStamp(stamp: 7_000, firstPTS: 7_900), ReceivedStamp(stamp: 0, firstPTS: 900)], 0),
        ("a file none names", 5, [ReceivedStamp(stamp: 7_000, firstPTS: 7_900)], nil),
    ] as [(String, Int64, [ReceivedStamp], Int64?)])
    func theShiftAFileCarriesIsToldByWhereItStarts(name: String, firstPTS: Int64, kept: [ReceivedStamp], stamp: Int64?) {
        #expect(ReceivedStamp.stamp(ofFileStartingAt: firstPTS, kept: kept) == stamp, "\(name)")
    }

    @Test func receivedSegmentsAreKeptListedReadAndRemoved() throws {
        let (files, data) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: data) }
        try files.keepReceived([0x47, 1, 2], variant: "360p", name: "b.ts")
        try files.keepReceived([0x47, 3], variant: "360p", name: "a.ts")
        // A write interrupted by a crash leaves a temporary file: it is no received segment.
        try "x".write(toFile: "\(files.layout.ingestDirectory("360p"))/\(AtomicFile.temporaryPrefix)c.ts.1.2", atomically: false, encoding: .utf8)
        #expect(files.receivedNames(variant: "360p") == ["a.ts", "b.ts"])
        #expect(files.receivedNames(variant: "180p") == [])
        #expect(files.received(variant: "360p", name: "b.ts") == [0x47, 1, 2])
        files.removeReceived(variant: "360p", name: "b.ts")
        #expect(files.received(variant: "360p", name: "b.ts") == nil && files.receivedNames(variant: "360p") == ["a.ts"])
    }

    @Test func unplacedSegmentsAreCountedPerVariant() throws {
        let (files, data) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: data) }
        #expect(files.unplacedCount(variant: "360p") == 0)
        try files.keepUnplaced([0x47], variant: "360p", slot: 7, name: "x.ts")
        try files.keepUnplaced([0x47], variant: "360p", slot: 8, name: "y.ts")
        #expect(files.unplacedCount(variant: "360p") == 2 && files.unplacedCount(variant: "180p") == 0)
        #expect(FileManager.default.fileExists(atPath: files.layout.unplacedPath("360p", slot: 7, name: "x.ts")))
    }

    @Test func aNewLadderRemovesWhatTheOldOneRecordedAndNothingElse() throws {
        let (files, data) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let layout = files.layout
        for variant in ["720p", "360p"] {
            try FileManager.default.createDirectory(atPath: layout.variantDirectory(variant), withIntermediateDirectories: true)
            try AtomicFile.write([0x47], to: layout.segmentPath(variant, "000000.ts"))
            try files.keepReceived([0x47], variant: variant, name: "s0.ts")
        }
        try AtomicFile.write("#EXTM3U\n", to: layout.masterPlaylistPath)
        try AtomicFile.write("{}", to: layout.timelinePath)
        try files.keep(Note(text: "ladder"), as: .ladder)
        try files.keep(Note(text: "meta"), as: .metadata)
        files.removeRecording(of: ["720p", "360p"])
        for path in [layout.variantDirectory("720p"), layout.variantDirectory("360p"), layout.ingestDirectory("720p"), layout.masterPlaylistPath, layout.timelinePath] {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path)")
        }
        #expect(files.load(Note.self, from: .ladder) == Note(text: "ladder") && files.load(Note.self, from: .metadata) == Note(text: "meta"))
    }
}
