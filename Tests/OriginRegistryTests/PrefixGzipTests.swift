import CompressNIO
import Foundation
import HLSPlaylist
import NIOCore
@testable import OriginRegistry
import SidelineTesting
import Testing

/// A live playlist with parts gets a version per part; its gzip is a deflated prefix kept from
/// version to version and a tail deflated anew (`PrefixGzip`). Every such member must inflate,
/// with any gzip reader, to exactly the text served plain.
@Suite struct PrefixGzipTests {
    static func inflate(_ buffer: ByteBuffer?) throws -> String {
        var compressed = try #require(buffer)
        return String(buffer: try compressed.decompress(with: .gzip()))
    }

    @Test(arguments: [0, 1, 300, 421_413])
    func aMemberInflatesToThePrefixAndTheTail(prefixBytes: Int) throws {
        let letters: [UInt8] = (0..<prefixBytes).map { (i: Int) -> UInt8 in UInt8(65 + (i * 7 + i / 13) % 26) }
        let prefix = String(decoding: letters, as: UTF8.self)
        let made = PrefixGzip(prefix)
        let gzip = try #require(made)
        for tail in ["", "#EXT-X-PART:DURATION=0.200000,URI=\"parts/000016.0.ts\",INDEPENDENT=YES\n", String(repeating: "#EXT-X-PRELOAD-HINT\n", count: 40)] {
            #expect(try Self.inflate(gzip.member(tail: tail)) == prefix + tail)
        }
    }

    /// gunzip, a reader that checks the CRC and the length, reads the member too.
    @Test func gunzipChecksTheCombinedCRCAndLength() throws {
        let prefix = String(repeating: "#EXTINF:2.000000,\n000001.ts\n", count: 2000)
        let member = try #require(PrefixGzip(prefix)?.member(tail: "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"parts/000002.0.ts\"\n"))
        let path = NSTemporaryDirectory() + "prefix-gzip-\(UUID().uuidString).gz"
        try Data(member.readableBytesView).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-t", path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "gzip -t accepts the member")
    }

    static func edge(open: Int, next: Int, listed: [Int]) -> LowLatencyEdge {
        func parts(_ sequence: Int, _ count: Int) -> [PartialSegment] {
            (0..<count).map { PartialSegment(uri: PartialSegment.recordedURI(segment: MediaSegment.recordedName(sequence: sequence), index: $0), duration: 0.2, independent: $0 == 0) }
        }
        return LowLatencyEdge(partTarget: 0.2, partsPerSegment: 10, listedParts: Dictionary(uniqueKeysWithValues: listed.map { ($0, parts($0, 10)) }),
                              openParts: parts(next, open), openProgramDateTime: open > 0 ? Date(timeIntervalSince1970: 1_800_000_000 + Double(2 * next)) : nil,
                              hint: PreloadHint(uri: PartialSegment.recordedURI(segment: MediaSegment.recordedName(sequence: next), index: open)),
                              reports: [RenditionReport(uri: "../180p/index.m3u8", lastSequence: next, lastPart: open)])
    }

    /// Part versions of one segment share the prefix (the same text, not rendered again);
    /// a listed segment or new markers make a new one; every form inflates to its plain text.
    @Test func partVersionsShareThePrefixUntilTheEntriesChange() throws {
        let live = TestPlaylists.live(count: 1000)
        var versions: [ServedMediaPlaylist] = []
        for open in 1...3 {
            versions.append(ServedMediaPlaylist(live, offer: .init(), tag: "t\(open)", edge: Self.edge(open: open, next: 1000, listed: [998, 999]), kept: versions.last?.prefix))
        }
        for version in versions {
            #expect(try Self.inflate(version.full.gzip) == String(buffer: version.full.plain))
        }
        let texts = versions.compactMap { $0.prefix?.text }
        #expect(texts.count == 3)
        #expect(texts.allSatisfy { $0 == texts[0] }, "one prefix for the three parts")
        #expect(String(buffer: versions[2].full.plain).hasSuffix("LAST-MSN=1000,LAST-PART=3\n"))
        #expect(String(buffer: versions[2].full.plain) == texts[0] + Self.edge(open: 3, next: 1000, listed: [998, 999]).tail())

        var grown = live
        grown.append(MediaSegment(uri: "001000.ts", duration: 2, programDateTime: Date(timeIntervalSince1970: 1_800_002_000)))
        let listed = ServedMediaPlaylist(grown, offer: .init(), tag: "t4", edge: Self.edge(open: 0, next: 1001, listed: [999, 1000]), kept: versions.last?.prefix)
        #expect(String(buffer: listed.full.plain).contains("001000.ts\n"), "a new entry: a new prefix, not the kept one")
        #expect(try Self.inflate(listed.full.gzip) == String(buffer: listed.full.plain))
        let marker = Marker(id: "m", label: "Goal", time: Date(timeIntervalSince1970: 1_800_000_010), created: Date(timeIntervalSince1970: 1_800_000_011), listedBefore: 5)
        let marked = ServedMediaPlaylist(live, markers: [marker], offer: .init(), tag: "t5", edge: Self.edge(open: 3, next: 1000, listed: [998, 999]), kept: versions.last?.prefix)
        #expect(String(buffer: marked.full.plain).contains("ID=\"m\""), "new markers: a new prefix")
        #expect(try Self.inflate(marked.full.gzip) == String(buffer: marked.full.plain))
    }
}
