import Foundation
import HLSPlaylist
import Testing
import TestSupport

/// The built `sideline serve`, started by the test on 127.0.0.1 and an ephemeral port, played
/// by the ffmpeg CLI as an HLS client.
@Suite(.serialized) struct ServeEndToEndTests {
    @Test func theSampleIsServedLiveAndPlaysInFFmpeg() async throws {
        let data = try makeTemporaryDirectory("e2e-data")
        let server = try SidelineProcess(arguments: ["--host", "127.0.0.1", "--port", "0", "--data-dir", data])
        let master = try await server.waitForURL()
        #expect(master.path == "/live/main/master.m3u8")

        // Playlists exist once the first segment is in place.
        let masterResponse = try await waitForOK(master)
        #expect(masterResponse.headers["content-type"] == "application/vnd.apple.mpegurl")
        let masterText = String(decoding: masterResponse.body, as: UTF8.self)
        #expect(masterText.contains("CODECS=\"avc1.64"))
        #expect(masterText.contains("RESOLUTION=1280x720"))
        #expect(masterText.contains("FRAME-RATE=30.000,VIDEO-RANGE=SDR,CLOSED-CAPTIONS=NONE"))
        let media = master.deletingLastPathComponent().appendingPathComponent("720p/index.m3u8")
        let mediaResponse = try await waitForOK(media)
        let playlist = try MediaPlaylist.parse(String(decoding: mediaResponse.body, as: UTF8.self))
        #expect(playlist.playlistType == .event)
        #expect(playlist.targetDuration == 2)
        #expect(!playlist.endList)
        let first = try #require(playlist.segments.first)
        #expect(first.programDateTime != nil)

        let segmentURL = media.deletingLastPathComponent().appendingPathComponent(first.uri)
        let segment = try await http(segmentURL)
        #expect(segment.status == 200)
        #expect(segment.headers["content-type"] == "video/mp2t")
        #expect(segment.headers["content-length"] == String(segment.body.count))
        let head = try await http(segmentURL, method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty && head.headers["content-length"] == String(segment.body.count))
        #expect(try await http(media.deletingLastPathComponent().appendingPathComponent("999999.ts")).status == 404)
        #expect(try await http(master.deletingLastPathComponent().appendingPathComponent("nope/index.m3u8")).status == 404)

        // The streams API reports the stream, live, with what it has recorded.
        let api = try await http(URL(string: "/api/streams", relativeTo: master)!.absoluteURL)
        let listing = try #require(try JSONSerialization.jsonObject(with: api.body) as? [String: Any])
        let streams = try #require(listing["streams"] as? [[String: Any]])
        #expect(streams.first?["id"] as? String == "main")
        #expect(streams.first?["state"] as? String == "live")
        let variants = try #require(streams.first?["variants"] as? [[String: Any]])
        #expect(variants.compactMap { $0["name"] as? String } == ["720p", "540p", "360p"], "the default ladder, best first")
        #expect((variants.first?["segments"] as? Int ?? 0) >= 1)
        #expect((variants.first?["averageBitRate"] as? Int ?? 0) > 1_000_000)

        // The I-frame playlist's byte ranges, fetched with Range requests, are keyframes.
        #expect(masterText.contains("#EXT-X-I-FRAME-STREAM-INF:") && masterText.contains("URI=\"720p/iframes.m3u8\""))
        let iFramesURL = media.deletingLastPathComponent().appendingPathComponent("iframes.m3u8")
        let iFrames = try MediaPlaylist.parse(String(decoding: try await waitForOK(iFramesURL).body, as: UTF8.self))
        #expect(iFrames.iFramesOnly && iFrames.version >= 4)
        let scratch = try makeTemporaryDirectory("e2e-iframes")
        for (n, entry) in iFrames.segments.prefix(2).enumerated() {
            let range = try #require(entry.byteRange)
            let answer = try await http(media.deletingLastPathComponent().appendingPathComponent(entry.uri),
                                        headers: ["Range": "bytes=\(range.offset)-\(range.offset + range.length - 1)"])
            #expect(answer.status == 206)
            #expect(answer.body.count == range.length)
            let path = scratch + "/iframe-\(n).ts"
            try answer.body.write(to: URL(fileURLWithPath: path))
            let video = try await FFprobe.packets(path, stream: "v")
            #expect(video.count == 1 && video.first?.isKeyframe == true, "I-frame \(n) decodes to a keyframe")
        }

        // ffmpeg plays the master playlist, live, for 8 s of media (four segments).
        let played = try await Command.run("ffmpeg", ["-hide_banner", "-v", "error", "-i", master.absoluteString, "-t", "8", "-f", "null", "-"], timeout: 60)
        #expect(played.status == 0, "ffmpeg failed: \(played.stderr)")
        #expect(played.stderr.isEmpty, "ffmpeg reported: \(played.stderr)")

        try await checkMetrics(master: master, masterText: masterText, media: media)
        try await checkVOD(master: master, media: media)

        // Ctrl-C ends the stream: the last segment is written and EXT-X-ENDLIST closes the playlist.
        let status = try await server.stop(signal: SIGINT)
        #expect(status == 0, "\(server.log)")
        let onDisk = try MediaPlaylist.parse(try String(contentsOfFile: data + "/main/720p/index.m3u8", encoding: .utf8))
        #expect(onDisk.endList)
        #expect(onDisk.segments.count >= 4)
        for listed in onDisk.segments {
            #expect(FileManager.default.fileExists(atPath: data + "/main/720p/" + listed.uri))
        }
        #expect(server.log.contains("media="), "the console status line was printed")
    }

    /// `/vod/`: the live entries with VOD type and ENDLIST, and a downloader (`ffmpeg -c copy`,
    /// as a script or a bench box would take the match so far) gets every listed second.
    func checkVOD(master: URL, media: URL) async throws {
        let vodMaster = URL(string: "/vod/main/master.m3u8", relativeTo: master)!.absoluteURL
        let vodMedia = URL(string: "/vod/main/720p/index.m3u8", relativeTo: master)!.absoluteURL
        let live = try MediaPlaylist.parse(String(decoding: try await http(media).body, as: UTF8.self))
        let vod = try MediaPlaylist.parse(String(decoding: try await http(vodMedia).body, as: UTF8.self))
        #expect(vod.playlistType == .vod && vod.endList)
        // The recording may have grown by a segment between the two requests.
        #expect(Array(vod.segments.prefix(live.segments.count)) == live.segments)
        let copy = try makeTemporaryDirectory("e2e-vod") + "/match.ts"
        let copied = try await Command.run("ffmpeg", ["-hide_banner", "-v", "error", "-i", vodMaster.absoluteString, "-map", "0:v:0", "-map", "0:a:0",
                                                      "-c", "copy", copy], timeout: 60)
        #expect(copied.status == 0, "ffmpeg failed: \(copied.stderr)")
        let video = try await FFprobe.packets(copy, stream: "v")
        let seconds = (video.last?.pts ?? 0) - (video.first?.pts ?? 0)
        #expect(seconds >= vod.duration - 2.5, "the copy holds \(seconds) s of the \(vod.duration) s listed")
        let api = try JSONSerialization.jsonObject(with: try await http(URL(string: "/api/streams", relativeTo: master)!.absoluteURL).body) as? [String: Any]
        let stream = (api?["streams"] as? [[String: Any]])?.first
        #expect(stream?["vodMaster"] as? String == "/vod/main/master.m3u8")
    }

    /// `GET /metrics` in the Prometheus text format: segment counts, request counts, publish
    /// latency, and the BANDWIDTH check, which must agree with the segments actually served.
    func checkMetrics(master: URL, masterText: String, media: URL) async throws {
        let response = try await http(URL(string: "/metrics", relativeTo: master)!.absoluteURL)
        #expect(response.status == 200)
        #expect(response.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = String(decoding: response.body, as: UTF8.self)
        func value(_ series: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        let labels = "{stream=\"main\",variant=\"720p\"}"
        let published = try #require(value("sideline_segments_published_total" + labels), "\(text)")
        #expect(published >= 4)
        #expect(text.contains("sideline_publish_latency_seconds_bucket{stream=\"main\""), "publish latency histogram")
        #expect(!text.contains("hb_requests{"), "per-route request metrics are off unless server.request_metrics is true")

        // Count, from the playlist and the files served, the segments above the advertised
        // BANDWIDTH. Segments may be published meanwhile: the count must lie between the metric
        // read before the playlist and the metric read after.
        let streamInf = try #require(masterText.split(separator: "\n").first { $0.hasPrefix("#EXT-X-STREAM-INF:") })
        let bandwidthField = try #require(streamInf.dropFirst("#EXT-X-STREAM-INF:".count).split(separator: ",").first { $0.hasPrefix("BANDWIDTH=") })
        let bandwidth = try #require(Double(bandwidthField.dropFirst("BANDWIDTH=".count)))
        let exceededBefore = value("sideline_segment_bandwidth_exceeded_total" + labels) ?? 0
        let playlist = try MediaPlaylist.parse(String(decoding: try await http(media).body, as: UTF8.self))
        var exceeded = 0.0
        for segment in playlist.segments {
            let head = try await http(media.deletingLastPathComponent().appendingPathComponent(segment.uri), method: "HEAD")
            let bytes = try #require(Double(head.headers["content-length"] ?? ""))
            if bytes * 8 / segment.duration > bandwidth { exceeded += 1 }
        }
        let after = String(decoding: try await http(URL(string: "/metrics", relativeTo: master)!.absoluteURL).body, as: UTF8.self)
        let exceededAfter = after.split(separator: "\n").first { $0.hasPrefix("sideline_segment_bandwidth_exceeded_total" + labels + " ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        #expect(exceededBefore <= exceeded && exceeded <= exceededAfter,
                "metric \(exceededBefore)...\(exceededAfter), counted \(exceeded) of \(playlist.segments.count) segments above \(bandwidth)")
    }

    /// SIGTERM stops the server but not the stream; the next start serves the old recording at
    /// once and continues it after a discontinuity.
    @Test func aRestartContinuesTheRecording() async throws {
        let data = try makeTemporaryDirectory("e2e-restart")
        let light = ["--config", Repository.lightLadderConfig, "--host", "127.0.0.1", "--port", "0", "--data-dir", data]
        let first = try SidelineProcess(arguments: light)
        let media = try await first.waitForURL().deletingLastPathComponent().appendingPathComponent("360p/index.m3u8")
        _ = try await waitForOK(media)
        #expect(try await first.stop(signal: SIGTERM) == 0, "\(first.log)")
        let before = try MediaPlaylist.parse(try String(contentsOfFile: data + "/main/360p/index.m3u8", encoding: .utf8))
        #expect(!before.endList, "SIGTERM leaves the stream open")
        #expect(!before.segments.isEmpty)

        let second = try SidelineProcess(arguments: light)
        let url = try await second.waitForURL().deletingLastPathComponent().appendingPathComponent("360p/index.m3u8")
        let early = try await http(url)
        #expect(early.status == 200, "the earlier recording is served before anything new is encoded")
        let deadline = Date().addingTimeInterval(20)
        var after = before
        while Date() < deadline, after.segments.count <= before.segments.count {
            try await Task.sleep(for: .milliseconds(300))
            after = try MediaPlaylist.parse(String(decoding: try await http(url).body, as: UTF8.self))
        }
        try await second.stop(signal: SIGTERM)
        #expect(Array(after.segments.prefix(before.segments.count)) == before.segments, "nothing recorded before is lost or changed")
        #expect(after.segments.count > before.segments.count)
        #expect(after.segments[before.segments.count].discontinuity)
        #expect(after.segments[before.segments.count].uri == StreamLayoutName.segment(before.segments.count))
    }
}

enum StreamLayoutName {
    static func segment(_ sequence: Int) -> String { String(format: "%06d.ts", sequence) }
}

/// A file played once (`--no-loop`) ends the stream by itself; the server goes on serving it.
@Suite struct EndOfInputTests {
    @Test func theEndOfAFileClosesThePlaylistAndServingContinues() async throws {
        let data = try makeTemporaryDirectory("e2e-end")
        let server = try SidelineProcess(arguments: ["--config", Repository.lightLadderConfig, "--host", "127.0.0.1", "--port", "0",
                                                     "--data-dir", data, "--no-loop", "--no-realtime"])
        let media = try await server.waitForURL().deletingLastPathComponent().appendingPathComponent("360p/index.m3u8")
        // Generous: the whole suite shares two cores, and this encode competes with all of it.
        let deadline = Date().addingTimeInterval(180)
        var playlist: MediaPlaylist?
        while Date() < deadline {
            if let response = try? await http(media), response.status == 200,
               let parsed = try? MediaPlaylist.parse(String(decoding: response.body, as: UTF8.self)), parsed.endList {
                playlist = parsed
                break
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        let ended = try #require(playlist, "EXT-X-ENDLIST within 180 s: \(server.log)")
        #expect(ended.segments.count == 12, "the 24 s sample makes twelve 2 s segments")
        #expect(abs(ended.duration - 24) < 0.05)
        #expect(server.process.isRunning, "the recording is still served after the input ended")
        let response = try await http(media)
        #expect(response.headers["cache-control"] == "public, max-age=86400")
        try await server.stop(signal: SIGTERM)
    }
}
