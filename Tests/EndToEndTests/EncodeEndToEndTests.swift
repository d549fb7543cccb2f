import Foundation
import HLSPlaylist
import Testing
import TestSupport

/// `sideline encode`: the same recording as `serve`, as fast as possible, then exit.
@Suite struct EncodeEndToEndTests {
    @Test func encodeRecordsAClosedPlaylistAndPrintsItsFigures() async throws {
        let directory = try makeTemporaryDirectory("encode")
        let clip = directory + "/clip.mp4"
        let made = try await Command.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=5",
                                                    "-f", "lavfi", "-i", "sine=duration=5", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", clip])
        #expect(made.status == 0)
        let result = try await Command.run(Repository.sidelineExecutable, ["encode", "--input", clip, "--data-dir", directory + "/data", "--stream", "replay"])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("encoded ") })
        #expect(summary.contains("media=5.00s") && summary.contains("segments=3") && summary.contains("realtime="))
        let playlist = try MediaPlaylist.parse(try String(contentsOfFile: directory + "/data/replay/720p/index.m3u8", encoding: .utf8))
        #expect(playlist.endList)
        #expect(playlist.segments.map(\.uri) == ["000000.ts", "000001.ts", "000002.ts"])
        #expect(abs(playlist.duration - 5) < 0.05)
        // 25 fps in, 30 fps out: the output frame rate is the configured one.
        let master = try String(contentsOfFile: directory + "/data/replay/master.m3u8", encoding: .utf8)
        #expect(master.contains("FRAME-RATE=30.000") && master.contains("RESOLUTION=1280x720"))
    }
}
