import Foundation
import HLSPlaylist
import Testing
import TestSupport

/// A camera away from the server: a remote encoder pushes an encoded ladder to
/// `/ingest/{stream}/...` and the server lists it in playlists of its own, as it would a camera
/// it encodes itself. The first real client is ffmpeg's HLS muxer with `-method PUT`.
@Suite struct IngestEndToEndTests {
    static let token = "field-token-0123456789abcdef"

    static func config() -> String {
        """
        \(TestLadders.twoRungs)
        streams:
          - name: field
            ingest_token: \(token)
            title: Roof camera
        """
    }

    struct Server {
        let process: SidelineProcess
        let base: URL
        let directory: String

        func url(_ path: String) -> URL { URL(string: path, relativeTo: base)!.absoluteURL }
    }

    static func start(_ name: String) async throws -> Server {
        let directory = try makeTemporaryDirectory(name)
        try config().write(toFile: directory + "/ingest.yaml", atomically: true, encoding: .utf8)
        let process = try SidelineProcess(arguments: ["--config", directory + "/ingest.yaml", "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data"])
        let master = try await process.waitForURL()
        return Server(process: process, base: URL(string: "/", relativeTo: master)!.absoluteURL, directory: directory)
    }

    /// ffmpeg's arguments for the two-rung ladder of `TestLadders.twoRungs`: the test pattern, 2 s
    /// segments cut on forced keyframes, AAC in each variant.
    static func ladderArguments(seconds: Int, realtime: Bool) -> [String] {
        (realtime ? ["-re"] : []) + [
            "-hide_banner", "-loglevel", "warning",
            "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", "\(seconds)",
            "-filter_complex", "[0:v]split=2[a][b];[b]scale=320:180[small]",
            "-map", "[a]", "-map", "[small]", "-map", "1:a", "-map", "1:a",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0",
            "-force_key_frames", "expr:gte(t,n_forced*2)", "-b:v:0", "600k", "-b:v:1", "200k",
            "-c:a", "aac", "-b:a", "64k",
            "-f", "hls", "-hls_time", "2", "-hls_list_size", "0", "-hls_playlist_type", "event",
            "-master_pl_name", "master.m3u8", "-var_stream_map", "v:0,a:0,name:360p v:1,a:1,name:180p",
        ]
    }

    /// The first video PTS of a segment the server serves.
    static func firstVideoPTS(_ url: URL, into directory: String) async throws -> Double {
        let answer = try await http(url)
        #expect(answer.status == 200, "\(url) is listed, so it is served")
        let path = directory + "/" + url.lastPathComponent
        try answer.body.write(to: URL(fileURLWithPath: path))
        return try #require(try await FFprobe.packets(path, stream: "v").first?.pts)
    }

    /// ffmpeg pushes the whole ladder by PUT over persistent connections; the server lists each
    /// segment in its own playlists (restamped onto the stream's timeline), serves every entry it
    /// lists, and after the encoder stops keeps the cadence with stand-ins whose timestamps go on.
    /// ffmpeg plays the result.
    @Test func ffmpegPushesALadderAndTheServerListsItAsItsOwn() async throws {
        let server = try await Self.start("ingest-ffmpeg")
        let ingest = server.url("/ingest/field")
        let push = try await Command.run("ffmpeg", Self.ladderArguments(seconds: 10, realtime: true) + [
            "-method", "PUT", "-http_persistent", "1", "-headers", "Authorization: Bearer \(Self.token)\r\n",
            "-hls_segment_filename", "\(ingest.absoluteString)/%v/seg%d.ts", "\(ingest.absoluteString)/%v/index.m3u8",
        ], timeout: 60)
        #expect(push.status == 0, "ffmpeg's push: \(push.stderr)")
        #expect(!push.stderr.contains("HTTP error"), "every upload was taken: \(push.stderr)")

        let master = String(decoding: try await waitForOK(server.url("/live/field/master.m3u8")).body, as: UTF8.self)
        #expect(master.contains("360p/index.m3u8") && master.contains("180p/index.m3u8"), "\(master)")
        #expect(master.contains("RESOLUTION=320x180"), "the pushed master's resolutions: \(master)")
        #expect(master.contains("VALUE=\"Roof camera\""), "\(master)")

        let probes = try makeTemporaryDirectory("ingest-probes")
        for variant in ["360p", "180p"] {
            let playlistURL = server.url("/live/field/\(variant)/index.m3u8")
            // Seen once in CI: right after ffmpeg exited, 360p listed 4 of its 5 segments, its
            // last playlist upload not yet taken. Wait (5 s at most) for the fifth.
            var text = ""
            var playlist = try MediaPlaylist.parse(String(decoding: try await waitForOK(playlistURL).body, as: UTF8.self))
            for _ in 0..<50 {
                text = String(decoding: try await waitForOK(playlistURL).body, as: UTF8.self)
                playlist = try MediaPlaylist.parse(text)
                // Five pushed entries, before any stand-in (whose run opens with a discontinuity).
                if playlist.segments.prefix(5).count == 5 && !playlist.segments.prefix(5).dropFirst().contains(where: \.discontinuity) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(playlist.playlistType == .event, "rendered by Sideline: \(variant)")
            #expect(playlist.segments.count >= 5 && !playlist.segments.prefix(5).dropFirst().contains(where: \.discontinuity), "10 s pushed in 2 s segments: \(variant) lists \(playlist.segments.count)\n\(text)\nffmpeg: \(push.stderr)\nserver: \(server.process.log)")
            #expect(playlist.segments.allSatisfy { $0.programDateTime != nil }, "every entry dated")
            var last = -Double.infinity
            for segment in playlist.segments {
                let pts = try await Self.firstVideoPTS(playlistURL.deletingLastPathComponent().appendingPathComponent(segment.uri), into: probes)
                #expect(pts > last, "\(variant) \(segment.uri): timestamps never go back (\(pts) after \(last))")
                last = pts
            }
            let first = playlistURL.deletingLastPathComponent().appendingPathComponent(try #require(playlist.segments.first).uri)
            let firstPath = probes + "/first-\(variant).ts"
            try (try await http(first)).body.write(to: URL(fileURLWithPath: firstPath))
            let frames = try await FFprobe.packets(firstPath, stream: "v")
            #expect(frames.count == 60 && frames.first?.isKeyframe == true, "a pushed 2 s segment at 30 fps, keyframe first: \(variant)")
            #expect(try await FFprobe.decodeErrors(firstPath).isEmpty)
        }

        // The encoder has stopped: the slots go on with stand-ins, after the pushed segments.
        let before = try MediaPlaylist.parse(String(decoding: try await http(server.url("/live/field/360p/index.m3u8")).body, as: UTF8.self)).segments.count
        try await Task.sleep(for: .seconds(5))
        let after = try MediaPlaylist.parse(String(decoding: try await http(server.url("/live/field/360p/index.m3u8")).body, as: UTF8.self))
        #expect(after.segments.count >= before + 1, "stand-ins keep the cadence once the pusher is quiet (\(before) -> \(after.segments.count))")

        let play = try await Command.run("ffmpeg", ["-v", "error", "-live_start_index", "0", "-i", server.url("/live/field/master.m3u8").absoluteString, "-t", "8", "-f", "null", "-"], timeout: 60)
        #expect(play.status == 0, "ffmpeg plays the pushed stream: \(play.stderr)")

        let api = try await http(server.url("/api/streams"))
        let listing = try #require(try JSONSerialization.jsonObject(with: api.body) as? [String: Any])
        let stream = try #require((listing["streams"] as? [[String: Any]])?.first)
        #expect(stream["id"] as? String == "field" && stream["state"] as? String == "live", "\(stream)")

        #expect(try await server.process.stop(signal: SIGINT) == 0, "\(server.process.log)")
        let onDisk = try MediaPlaylist.parse(try String(contentsOfFile: server.directory + "/data/field/360p/index.m3u8", encoding: .utf8))
        #expect(onDisk.endList, "Ctrl-C ends a pushed stream too")
    }

    /// Who may push, what an upload may be, and the three ways a segment arrives (PUT, POST,
    /// multipart POST with the field app's `uploadFile`). Nothing refused is listed.
    @Test func uploadsAreCheckedAndRefusedWithAReason() async throws {
        let server = try await Self.start("ingest-refusals")
        // Segments made beforehand, as an encoder in the field would have them.
        let made = try makeTemporaryDirectory("ingest-made")
        let encode = try await Command.run("ffmpeg", Self.ladderArguments(seconds: 6, realtime: false) + [
            "-hls_segment_filename", "\(made)/%v/seg%d.ts", "\(made)/%v/index.m3u8",
        ], timeout: 120)
        #expect(encode.status == 0, "\(encode.stderr)")
        let seg0 = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(made)/360p/seg0.ts")))
        let seg1 = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(made)/360p/seg1.ts")))
        let playlist = try String(contentsOfFile: "\(made)/360p/index.m3u8", encoding: .utf8)
        let authorized = ["Authorization": "Bearer \(Self.token)"]

        let noToken = try await http(server.url("/ingest/field/360p/seg0.ts"), method: "PUT", bytes: seg0)
        #expect(noToken.status == 401 && noToken.headers["www-authenticate"]?.contains("sideline-ingest") == true)
        let wrongToken = try await http(server.url("/ingest/field/360p/seg0.ts"), method: "PUT", bytes: seg0, headers: ["Authorization": "Bearer not-the-token"])
        #expect(wrongToken.status == 401)
        #expect(try await http(server.url("/ingest/elsewhere/360p/seg0.ts"), method: "PUT", bytes: seg0, headers: authorized).status == 404)
        let unknownVariant = try await http(server.url("/ingest/field/1080p/seg0.ts"), method: "PUT", bytes: seg0, headers: authorized)
        #expect(unknownVariant.status == 404 && String(decoding: unknownVariant.body, as: UTF8.self).contains("360p, 180p"))
        let garbage = try await http(server.url("/ingest/field/360p/bad.ts"), method: "PUT", bytes: Array(repeating: 0x42, count: 188 * 10), headers: authorized)
        #expect(garbage.status == 400 && String(decoding: garbage.body, as: UTF8.self).contains("bad.ts"), "\(String(decoding: garbage.body, as: UTF8.self))")
        let cut = try await http(server.url("/ingest/field/360p/cut.ts"), method: "PUT", bytes: Array(seg0[..<(seg0.count - 100)]), headers: authorized)
        #expect(cut.status == 400, "a segment cut mid-packet: \(String(decoding: cut.body, as: UTF8.self))")
        #expect(!FileManager.default.fileExists(atPath: server.directory + "/data/field/ingest/360p/bad.ts"), "nothing refused is kept")

        // POST with the file as the body, then multipart as the field app sends it.
        #expect(try await http(server.url("/ingest/field/360p/seg0.ts"), method: "POST", bytes: seg0, headers: authorized).status == 201)
        let boundary = "----sideline-test-boundary"
        var form = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"uploadFile\"; filename=\"seg1.ts\"\r\nContent-Type: video/mp2t\r\n\r\n".utf8)
        form += seg1 + Array("\r\n--\(boundary)--\r\n".utf8)
        let multipart = try await http(server.url("/ingest/field/360p/seg1.ts"), method: "POST", bytes: form,
                                       headers: authorized.merging(["Content-Type": "multipart/form-data; boundary=\(boundary)"]) { a, _ in a })
        #expect(multipart.status == 201, "\(String(decoding: multipart.body, as: UTF8.self))")
        #expect(try await http(server.url("/ingest/field/360p/seg1.ts"), method: "PUT", bytes: seg1, headers: authorized).status == 200, "a retried upload replaces")

        // A playlist naming a segment not received is refused whole; nothing is listed.
        let ahead = playlist.replacingOccurrences(of: "#EXT-X-ENDLIST", with: "") + "#EXTINF:2.000000,\nseg2.ts\n"
        let refused = try await http(server.url("/ingest/field/360p/index.m3u8"), method: "PUT", body: ahead, headers: authorized)
        #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("seg2.ts"), "\(String(decoding: refused.body, as: UTF8.self))")
        #expect(try await http(server.url("/live/field/360p/index.m3u8")).status != 200, "nothing listed yet")
        #expect(try await http(server.url("/ingest/field/360p/index.m3u8"), method: "PUT", body: "not a playlist", headers: authorized).status == 400)

        // The first two of the encoder's three segments.
        let firstTwo = try #require(playlist.range(of: "seg1.ts\n")).upperBound
        let taken = try await http(server.url("/ingest/field/360p/index.m3u8"), method: "PUT", body: String(playlist[..<firstTwo]), headers: authorized)
        #expect(taken.status == 200 && String(decoding: taken.body, as: UTF8.self).contains("listed 2"), "\(String(decoding: taken.body, as: UTF8.self))")
        let listed = try MediaPlaylist.parse(String(decoding: try await waitForOK(server.url("/live/field/360p/index.m3u8")).body, as: UTF8.self))
        #expect(listed.segments.count >= 2 && !listed.endList, "listed in Sideline's own EVENT playlist, not ended by the pushed ENDLIST")
        for segment in listed.segments.prefix(2) {
            #expect(try await http(server.url("/live/field/360p/\(segment.uri)")).status == 200)
        }

        // Title, description and keywords as a field app sends them: in the master and the API.
        let about = "Roof camera\ntactical, wide\nThe whole pitch from the roof"
        #expect(try await http(server.url("/ingest/field/metadata"), method: "PUT", body: about, headers: authorized).status == 200)
        #expect(try await http(server.url("/ingest/field/metadata"), method: "PUT", body: "{\"title\": \"a \\\"quote\\\"\"}", headers: authorized).status == 400)
        let master = String(decoding: try await waitForOK(server.url("/live/field/master.m3u8")).body, as: UTF8.self)
        #expect(master.contains(#"DATA-ID="com.sideline.keywords",VALUE="tactical, wide""#) && master.contains(#"VALUE="The whole pitch from the roof""#), "\(master)")

        // A segment received but not listed when the server stops waits, on disk, for its playlist.
        let seg2 = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(made)/360p/seg2.ts")))
        #expect(try await http(server.url("/ingest/field/360p/seg2.ts"), method: "PUT", bytes: seg2, headers: authorized).status == 201)
        #expect(try await server.process.stop(signal: SIGTERM) == 0, "\(server.process.log)")
        let again = try SidelineProcess(arguments: ["--config", server.directory + "/ingest.yaml", "--host", "127.0.0.1", "--port", "0", "--data-dir", server.directory + "/data"])
        let base = URL(string: "/", relativeTo: try await again.waitForURL())!.absoluteURL
        let before = try MediaPlaylist.parse(String(decoding: try await waitForOK(URL(string: "/live/field/360p/index.m3u8", relativeTo: base)!.absoluteURL).body, as: UTF8.self))
        let afterRestart = try await http(URL(string: "/ingest/field/360p/index.m3u8", relativeTo: base)!.absoluteURL, method: "PUT", body: playlist, headers: authorized)
        #expect(afterRestart.status == 200 && String(decoding: afterRestart.body, as: UTF8.self).contains("listed 1"), "\(String(decoding: afterRestart.body, as: UTF8.self))")
        let listedAgain = try MediaPlaylist.parse(String(decoding: try await http(URL(string: "/live/field/360p/index.m3u8", relativeTo: base)!.absoluteURL).body, as: UTF8.self))
        #expect(listedAgain.segments.count > before.segments.count, "seg2 listed after the restart")
        let api = try #require(try JSONSerialization.jsonObject(with: try await http(URL(string: "/api/streams", relativeTo: base)!.absoluteURL).body) as? [String: Any])
        let stream = try #require((api["streams"] as? [[String: Any]])?.first)
        #expect(stream["title"] as? String == "Roof camera" && stream["keywords"] as? String == "tactical, wide", "the pusher's metadata survives a restart: \(stream)")
        #expect(try await again.stop(signal: SIGTERM) == 0, "\(again.log)")
    }
}
