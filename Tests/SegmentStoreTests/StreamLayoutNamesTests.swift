import SegmentStore
import SidelineCore
import Testing

/// Every file and folder the layout puts in a stream's directory is the variant's or one of
/// `StoreNames`' reserved names, so no usable name (a stream, set or variant) can equal one.
/// A path added to the layout under a new name fails here until the name is reserved.
@Suite struct StreamLayoutNamesTests {
    @Test func everyPathInAStreamDirectoryIsAVariantsOrAReservedName() {
        let layout = StreamLayout(dataDirectory: "/data", stream: "main")
        let variant = "720p"
        let paths = [
            layout.masterPlaylistPath, layout.timelinePath, layout.mediaPlaylistPath(variant), layout.iFramePlaylistPath(variant),
            layout.segmentPath(variant, "000001.ts"), layout.ingestDirectory(variant), layout.ingestSessionPath, layout.pushedLadderPath,
            layout.metadataPath, layout.unplacedPath(variant, slot: 3, name: "a.ts"), MarkerFile.path(in: layout), StreamTombstone.path(in: layout),
        ]
        for path in paths {
            #expect(path.hasPrefix(layout.streamDirectory + "/"), "\(path)")
            let first = String(path.dropFirst(layout.streamDirectory.count + 1).split(separator: "/")[0])
            #expect(first == variant || StoreNames.reserved.contains(first.lowercased()), "\(path): '\(first)' is neither the variant nor reserved")
            #expect(!StoreNames.isUsable(first) || first == variant, "\(path)")
        }
        // Inside ingest/, the pushed variants' folders sit beside the session and the ladder.
        for path in [layout.ingestSessionPath, layout.pushedLadderPath] {
            let name = String(path.split(separator: "/").last ?? "")
            #expect(!StoreNames.isUsable(name), "\(name) must not be a usable variant name")
        }
    }
}
