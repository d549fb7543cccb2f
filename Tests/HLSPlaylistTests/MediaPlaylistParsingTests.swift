import HLSPlaylist
import Testing

@Suite struct MediaPlaylistParsingTests {
    @Test(arguments: [
        ("", PlaylistParseError.missingHeader),
        ("#EXT-X-VERSION:3\n", .missingHeader),
        ("#EXTM3U\n#EXTINF:2,\na.ts\n", .missingTargetDuration),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\na.ts\n", .uriWithoutExtinf(uri: "a.ts", line: 3)),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n", .extinfWithoutURI(line: 3)),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:two\n", .invalidValue(tag: "#EXT-X-TARGETDURATION", value: "two", line: 2)),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:-1,\na.ts\n", .invalidValue(tag: "#EXTINF", value: "-1,", line: 3)),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PROGRAM-DATE-TIME:yesterday\n", .invalidValue(tag: "#EXT-X-PROGRAM-DATE-TIME", value: "yesterday", line: 3)),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:LIVE\n", .invalidValue(tag: "#EXT-X-PLAYLIST-TYPE", value: "LIVE", line: 3)),
    ])
    func malformedPlaylistsAreRejectedWithTheirLine(text: String, expected: PlaylistParseError) {
        #expect(throws: expected) { try MediaPlaylist.parse(text) }
    }

    @Test func unknownTagsAndCRLFAreTolerated() throws {
        let text = "#EXTM3U\r\n#EXT-X-TARGETDURATION:6\r\n#EXT-X-SOMETHING-NEW:1\r\n# a comment\r\n#EXTINF:5.5,title\r\nseg.ts\r\n"
        let playlist = try MediaPlaylist.parse(text)
        #expect(playlist.segments == [MediaSegment(uri: "seg.ts", duration: 5.5)])
        #expect(playlist.targetDuration == 6)
    }

    @Test func gapTagIsRead() throws {
        let playlist = try MediaPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n#EXT-X-GAP\na.ts\n")
        #expect(playlist.segments.first?.gap == true)
    }
}
