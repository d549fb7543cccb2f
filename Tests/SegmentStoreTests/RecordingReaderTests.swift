import Foundation
import HLSPlaylist
import SegmentStore
import Testing

/// The one reader of a recording, on a real temporary directory: what is there, what is not,
/// and a playlist that is there but cannot be read (named, with its path).
@Suite struct RecordingReaderTests {
    @Test func whatIsThereIsReadAndWhatIsNotIsNone() throws {
        let data = NSTemporaryDirectory() + "recording-reader-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: data) }
        let layout = StreamLayout(dataDirectory: data, stream: "main")
        let reader = RecordingReader(layout: layout)
        #expect(!reader.exists && reader.master() == nil && reader.recordedVariants() == [])
        #expect(try reader.mediaPlaylist("720p") == nil)
        for variant in ["720p", "360p"] {
            try FileManager.default.createDirectory(atPath: layout.variantDirectory(variant), withIntermediateDirectories: true)
        }
        try AtomicFile.write("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\n000000.ts\n", to: layout.mediaPlaylistPath("720p"))
        try AtomicFile.write("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\n720p/index.m3u8\n", to: layout.masterPlaylistPath)
        try AtomicFile.write("not a playlist", to: layout.mediaPlaylistPath("360p"))
        try AtomicFile.write("not a playlist either", to: layout.iFramePlaylistPath("720p"))
        #expect(reader.exists)
        #expect(reader.master()?.variants.map(\.uri) == ["720p/index.m3u8"])
        #expect(try reader.mediaPlaylist("720p")?.segments.map(\.uri) == ["000000.ts"])
        #expect(reader.iFramePlaylist("720p") == nil, "an unreadable I-frame playlist is made again, not a failure")
        #expect(reader.recordedVariants() == ["360p", "720p"])
        #expect {
            try reader.mediaPlaylist("360p")
        } throws: { error in
            (error as? RecordingReader.Unreadable)?.description.hasPrefix(layout.mediaPlaylistPath("360p") + " cannot be read back") == true
        }
    }
}
