import Foundation
import HLSPlaylist
import Testing
import TestSupport

/// The master playlist's attributes, checked against what ffprobe finds in the real segments.
@Suite struct MasterPlaylistEndToEndTests {
    /// A two-rung ladder with different profiles, so CODECS has to differ per variant.
    static let config = """
    video:
      ladder:
        - {name: 360p, width: 640, height: 360, bitrate: 800k, preset: veryfast, profile: main}
        - {name: 180p, width: 320, height: 180, bitrate: 250k, preset: ultrafast, profile: baseline}
    """

    @Test func attributesMatchTheSegments() async throws {
        let directory = try makeTemporaryDirectory("master")
        try Self.config.write(toFile: directory + "/ladder.yaml", atomically: true, encoding: .utf8)
        let result = try await Command.run(Repository.sidelineExecutable, ["encode", "--config", directory + "/ladder.yaml", "--input", Repository.sample,
                                                                            "--data-dir", directory + "/data", "--stream", "m"], timeout: 300)
        #expect(result.status == 0, "\(result.stderr)")
        let master = try String(contentsOfFile: directory + "/data/m/master.m3u8", encoding: .utf8)
        let lines = master.split(separator: "\n").map(String.init)
        #expect(lines.contains("#EXT-X-INDEPENDENT-SEGMENTS"))
        var checked = 0
        for (offset, line) in lines.enumerated() where line.hasPrefix("#EXT-X-STREAM-INF:") {
            let attributes = Self.attributes(String(line.dropFirst("#EXT-X-STREAM-INF:".count)))
            let uri = lines[offset + 1]
            let variant = String(uri.split(separator: "/")[0])
            let playlist = try MediaPlaylist.parse(try String(contentsOfFile: directory + "/data/m/" + uri, encoding: .utf8))
            let segmentPaths = playlist.segments.map { directory + "/data/m/\(variant)/" + $0.uri }
            let video = try #require(try await FFprobe.streams(segmentPaths[0]).first { $0.codecType == "video" })

            // CODECS: avc1.PPCCLL from the SPS: profile_idc and level_idc as ffprobe reads them.
            let codecs = try #require(attributes["CODECS"]).split(separator: ",")
            #expect(codecs.count == 2 && codecs[1] == "mp4a.40.2")
            let avc = String(codecs[0])
            #expect(avc.hasPrefix("avc1.") && avc.count == 11, "\(avc)")
            let profileIDC = Int(avc.dropFirst(5).prefix(2), radix: 16)
            let levelIDC = Int(avc.suffix(2), radix: 16)
            let expectedProfile = ["Main": 77, "High": 100, "Baseline": 66, "Constrained Baseline": 66][video.profile ?? ""]
            #expect(profileIDC == expectedProfile, "\(variant): CODECS \(avc) vs ffprobe profile \(video.profile ?? "?")")
            #expect(levelIDC == video.level, "\(variant): CODECS \(avc) vs ffprobe level \(video.level ?? -1)")

            #expect(attributes["RESOLUTION"] == "\(video.width ?? 0)x\(video.height ?? 0)", "\(variant)")
            let frameRate = try #require(video.frameRate)
            #expect(attributes["FRAME-RATE"] == String(format: "%.3f", frameRate), "\(variant)")

            // BANDWIDTH bounds the peak segment bit rate; AVERAGE-BANDWIDTH is below it.
            let bandwidth = try #require(attributes["BANDWIDTH"].flatMap(Double.init))
            let average = try #require(attributes["AVERAGE-BANDWIDTH"].flatMap(Double.init))
            #expect(average <= bandwidth)
            var peak = 0.0
            for (segment, path) in zip(playlist.segments, segmentPaths) {
                let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
                peak = max(peak, Double(size * 8) / segment.duration)
            }
            #expect(peak > 0 && peak <= bandwidth, "\(variant): peak segment \(Int(peak)) bit/s, BANDWIDTH \(Int(bandwidth))")
            checked += 1
        }
        #expect(checked == 2)
    }

    /// `KEY=value,KEY="quoted, value"` into a dictionary (quotes removed).
    static func attributes(_ list: String) -> [String: String] {
        var result: [String: String] = [:]
        var key = "", value = "", inKey = true, quoted = false
        func finish() {
            if !key.isEmpty { result[key] = value }
            key = ""; value = ""; inKey = true
        }
        for character in list {
            if inKey {
                if character == "=" { inKey = false } else { key.append(character) }
            } else if character == "\"" {
                quoted.toggle()
            } else if character == "," && !quoted {
                finish()
            } else {
                value.append(character)
            }
        }
        finish()
        return result
    }
}
